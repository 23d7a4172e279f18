import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import groups from '../../../mutation/groups.json';
import {
  compactReport,
  manifestOf,
  staleness,
  unchangedSinceReport,
  type GroupEntry,
  type StoredReport,
} from '../../../mutation/incremental-reports';

/**
 * `npm run mutate`'s choice between a group's incremental run and a whole one
 * (test/mutation/incremental-reports.ts): a change Stryker's incremental mode cannot see, in a file the
 * group's tests or modules import however deeply, in vitest's set-up or in configuration, makes
 * the group's manifest stale.
 */
const root = mkdtempSync(join(tmpdir(), 'mutation-manifest-'));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const entry: GroupEntry = { mutate: ['src/*.ts'], tests: ['test/a.test.ts'] };
const manifest = () => manifestOf(entry, ['test/setup.ts'], root);

beforeAll(() => {
  write('package-lock.json', '{"lockfileVersion": 3}');
  write('tsconfig.json', '{}');
  write('vitest.config.ts', "export default { test: { setupFiles: ['test/setup.ts'] } };\n");
  write('src/rule.ts', "import { limit } from '../lib/helper';\nexport const allowed = (n: number) => n <= limit();\n");
  write('lib/helper.ts', "import { BASE } from './deep';\nexport const limit = () => BASE * 2;\n");
  write('lib/deep.ts', 'export const BASE = 5;\n');
  write(
    'test/a.test.ts',
    "import { it } from 'vitest';\nimport { allowed } from '../src/rule';\nimport { cases } from './support/cases';\nit('allows', () => { for (const n of cases) allowed(n); });\n",
  );
  write('test/support/cases.ts', "import { more } from './more';\nexport const cases = [1, 2, ...more];\n");
  write('test/support/more.ts', 'export const more = [3];\n');
  write('test/setup.ts', "import { BASE } from '../lib/deep';\nexport const seen = BASE;\n");
  write('test/support/unused.ts', 'export const nobody = 1;\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a group's manifest", () => {
  it("hashes what its tests, modules and vitest's set-up import however deeply, and configuration; not its own modules and test files (Stryker diffs those)", async () => {
    expect(Object.keys((await manifest()).files)).toEqual([
      'lib/deep.ts',
      'lib/helper.ts',
      'package-lock.json',
      'stryker.config.mjs',
      'test/setup.ts',
      'test/support/cases.ts',
      'test/support/more.ts',
      'tsconfig.json',
      'vitest.config.ts',
      'vitest.mutate.config.ts',
    ]);
    expect((await manifest()).files['stryker.config.mjs']).toBe('absent');
  });

  it('is fresh when nothing changed, and when only a mutated module or a test file changed (incremental mode sees those)', async () => {
    const stored = await manifest();
    expect(staleness(stored, await manifest())).toEqual([]);
    appendFileSync(join(root, 'src/rule.ts'), 'export const other = 1;\n');
    appendFileSync(join(root, 'test/a.test.ts'), '// more\n');
    appendFileSync(join(root, 'test/support/unused.ts'), '// imported by nothing\n');
    expect(staleness(stored, await manifest())).toEqual([]);
  });

  it('is stale when a file a module imports through another changes', async () => {
    const stored = await manifest();
    appendFileSync(join(root, 'lib/deep.ts'), 'export const OTHER = 6;\n');
    expect(staleness(stored, await manifest())).toEqual(['lib/deep.ts changed']);
  });

  it("is stale when a test support file two imports deep changes, or vitest's set-up", async () => {
    const stored = await manifest();
    appendFileSync(join(root, 'test/support/more.ts'), 'export const fewer = [];\n');
    appendFileSync(join(root, 'test/setup.ts'), '// changed\n');
    expect(staleness(stored, await manifest())).toEqual(['test/setup.ts changed', 'test/support/more.ts changed']);
  });

  it("is stale when configuration or the dependencies change, or the group's entry", async () => {
    const stored = await manifest();
    write('package-lock.json', '{"lockfileVersion": 3, "packages": {}}');
    write('stryker.config.mjs', 'export default {};\n');
    expect(staleness(stored, await manifest())).toEqual(['package-lock.json changed', 'stryker.config.mjs changed']);
    expect(
      staleness({ ...stored, group: { ...entry, tests: [...entry.tests, 'test/b.test.ts'] } }, await manifest()),
    ).toEqual([
      'its entry of test/mutation/groups.json changed',
      'package-lock.json changed',
      'stryker.config.mjs changed',
    ]);
  });

  it('is stale when a test file imports a file it did not (a new dependency), or there is none', async () => {
    const stored = await manifest();
    appendFileSync(join(root, 'test/a.test.ts'), "import { nobody } from './support/unused';\nvoid nobody;\n");
    expect(staleness(stored, await manifest())).toEqual(['test/support/unused.ts is a new dependency']);
    expect(staleness(undefined, stored)).toEqual(['no manifest']);
  });

  it('refuses an import() of a computed path that no entry of UNSEEN_LOADS says what it loads', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the module's text, whose template literal the manifest must refuse
    write('lib/loader.ts', 'export const load = (name: string) => import(`./${name}`);\n');
    appendFileSync(join(root, 'lib/helper.ts'), "export { load } from './loader';\n");
    await expect(manifest()).rejects.toThrow('lib/loader.ts: an import() of a computed path');
    write('lib/helper.ts', "import { BASE } from './deep';\nexport const limit = () => BASE * 2;\n");
  });

  it("follows vite's import.meta.glob", async () => {
    write('lib/globbed/one.ts', 'export const one = 1;\n');
    write('lib/globbed/two.ts', "import { BASE } from '../deep';\nexport const two = BASE;\n");
    write(
      'test/support/more.ts',
      "export const more = Object.keys(import.meta.glob('../../lib/globbed/*.ts', { eager: true })).map((key) => key.length);\n",
    );
    expect(Object.keys((await manifest()).files)).toEqual(
      expect.arrayContaining(['lib/globbed/one.ts', 'lib/globbed/two.ts', 'lib/deep.ts']),
    );
  });
});

describe("the project's groups", () => {
  it("name-pattern: its HTTP test's support files, the handlers the local server loads by their declared paths, and no module of its own", async () => {
    const setupFiles = ['test/support/global-setup.ts', 'test/support/table-per-file.ts'];
    const { files } = await manifestOf(groups['name-pattern'], setupFiles);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'test/support/boundary-values.ts',
        'test/support/api.ts',
        'local/server.ts',
        'functions/createPet/handler.ts',
        'shared/pets/fields.ts',
        ...setupFiles,
        'package-lock.json',
        'vitest.mutate.config.ts',
      ]),
    );
    expect(Object.keys(files)).not.toContain('shared/pets/name-pattern.ts');
    expect(Object.keys(files)).not.toContain('test/unit/shared/pets/name-pattern.test.ts');
    expect(Object.keys(files)).not.toContain('test/mutation/groups.json');
  });
});

describe('a group unchanged since its report', () => {
  const source = 'export const a = 1;\n';
  const report = (status = 'Killed', statusReason?: string): StoredReport => ({
    thresholds: { break: 90 },
    files: { 'src/rule.ts': { source, mutants: [{ status, statusReason }] } },
    testFiles: { 'test/a.test.ts': { source: 'it();\n' } },
  });
  const here = mkdtempSync(join(tmpdir(), 'mutation-unchanged-'));
  afterAll(() => rmSync(here, { recursive: true, force: true }));

  it('is scored from its report when its modules and test files are as the report holds them', () => {
    mkdirSync(join(here, 'src'));
    mkdirSync(join(here, 'test'));
    writeFileSync(join(here, 'src/rule.ts'), source);
    writeFileSync(join(here, 'test/a.test.ts'), 'it();\n');
    expect(unchangedSinceReport(report(), entry, here)).toBe(true);
    expect(unchangedSinceReport(report('Ignored', 'Ignored by disable comment'), entry, here)).toBe(true);
  });

  it('runs when one changed, a module or test file is new, or --ignore-static ignored some of its mutants', () => {
    expect(unchangedSinceReport(report('Ignored', 'Static mutant (and "ignoreStatic" was enabled)'), entry, here)).toBe(
      false,
    );
    writeFileSync(join(here, 'src/new.ts'), source);
    expect(unchangedSinceReport(report(), entry, here)).toBe(false);
    rmSync(join(here, 'src/new.ts'));
    expect(unchangedSinceReport(report(), { ...entry, tests: [...entry.tests, 'test/b.test.ts'] }, here)).toBe(false);
    writeFileSync(join(here, 'test/a.test.ts'), 'it(); it();\n');
    expect(unchangedSinceReport(report(), entry, here)).toBe(false);
  });
});

describe('the committed incremental report', () => {
  it("keeps what Stryker's next run reads: sources, each mutant's place, mutator, replacement, status and killers, and the tests that covered one not killed", () => {
    const stryker = {
      schemaVersion: '1.0',
      thresholds: { high: 95, low: 90, break: 90 },
      projectRoot: '/somewhere',
      config: { concurrency: 2 },
      framework: { name: 'StrykerJS' },
      files: {
        'src/rule.ts': {
          language: 'typescript',
          source: 'x',
          mutants: [
            {
              id: '1',
              mutatorName: 'EqualityOperator',
              replacement: '<',
              location: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } },
              status: 'Killed',
              statusReason: 'expected 1 to be 2',
              static: false,
              testsCompleted: 2,
              killedBy: ['0'],
              coveredBy: ['0', '1'],
            },
            {
              id: '2',
              mutatorName: 'BooleanLiteral',
              replacement: 'true',
              location: { start: { line: 2, column: 1 }, end: { line: 2, column: 2 } },
              status: 'Survived',
              static: true,
              testsCompleted: 2,
              killedBy: [],
              coveredBy: ['0', '1'],
            },
          ],
        },
      },
      testFiles: {
        'test/a.test.ts': {
          source: 'y',
          tests: [
            { id: '0', name: 'a' },
            { id: '1', name: 'b' },
          ],
        },
      },
    };
    const compact = compactReport(JSON.stringify(stryker, null, 2));
    expect(compact).not.toContain('\n');
    expect(JSON.parse(compact)).toEqual({
      schemaVersion: '1.0',
      thresholds: stryker.thresholds,
      files: {
        'src/rule.ts': {
          language: 'typescript',
          source: 'x',
          mutants: [
            {
              id: '1',
              mutatorName: 'EqualityOperator',
              replacement: '<',
              location: stryker.files['src/rule.ts'].mutants[0]?.location,
              status: 'Killed',
              testsCompleted: 2,
              killedBy: ['0'],
            },
            {
              id: '2',
              mutatorName: 'BooleanLiteral',
              replacement: 'true',
              location: stryker.files['src/rule.ts'].mutants[1]?.location,
              status: 'Survived',
              testsCompleted: 2,
              killedBy: [],
              coveredBy: ['0', '1'],
            },
          ],
        },
      },
      testFiles: stryker.testFiles,
    });
  });
});
