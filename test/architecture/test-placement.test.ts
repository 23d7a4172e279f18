import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TESTS_ELSEWHERE } from '../tests-elsewhere';

/**
 * Where tests sit (docs/testing.md#where-tests-sit): test/unit/ mirrors the source tree, the unit
 * test of `<path>.ts` being `test/unit/<path>.test.ts`; every module of shared/ and functions/ has
 * that mirror or an entry in test/tests-elsewhere.ts naming the tests that cover it and why.
 */
const root = resolve(__dirname, '../..');

/** Every file under a folder of the project, recursively, from the root, with `/` between folders. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

/** The modules whose unit tests the rule asks for: every .ts file of shared/ and functions/, generated ones too. */
function modulesToTest(files: readonly string[]): string[] {
  return files.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
}

/** The module a file under test/unit/ mirrors, or undefined when its name is no mirror's. */
function mirroredModule(testFile: string): string | undefined {
  const match = /^test\/unit\/(.+)\.test\.ts$/.exec(testFile);
  return match === null ? undefined : `${match[1]}.ts`;
}

/** A module's unit test, where the rule puts it. */
function mirrorOf(module: string): string {
  return `test/unit/${module.replace(/\.ts$/, '.test.ts')}`;
}

/** What breaks the rule, each in one line; none when the tree keeps it. */
function placementProblems(
  unitFiles: readonly string[],
  modules: readonly string[],
  elsewhere: Readonly<Record<string, { readonly tests: readonly string[] }>>,
  exists: (path: string) => boolean,
): string[] {
  const problems: string[] = [];
  for (const file of unitFiles) {
    const module = mirroredModule(file);
    if (module === undefined)
      problems.push(`${file}: not <module path>.test.ts; a test of no one module sits elsewhere`);
    else if (!exists(module)) problems.push(`${file}: mirrors ${module}, which does not exist`);
  }
  const mirrored = new Set(unitFiles);
  for (const module of modules)
    if (!mirrored.has(mirrorOf(module)) && !Object.hasOwn(elsewhere, module))
      problems.push(`${module}: neither ${mirrorOf(module)} nor an entry in test/tests-elsewhere.ts`);
  const known = new Set(modules);
  for (const [module, { tests }] of Object.entries(elsewhere)) {
    if (!known.has(module)) problems.push(`test/tests-elsewhere.ts: ${module} is no module of shared/ or functions/`);
    if (mirrored.has(mirrorOf(module)))
      problems.push(`test/tests-elsewhere.ts: ${module} has ${mirrorOf(module)}: remove its entry`);
    if (tests.length === 0) problems.push(`test/tests-elsewhere.ts: ${module} names no test`);
    for (const test of tests)
      if (!/\.test\.ts$/.test(test) || !exists(test))
        problems.push(`test/tests-elsewhere.ts: ${module} names ${test}, which is no test file`);
  }
  return problems;
}

const exists = (path: string) => existsSync(join(root, path));

describe('where tests sit', () => {
  it('test/unit/ mirrors existing modules; every module of shared/ and functions/ has its mirror or one entry naming existing tests', () => {
    const modules = modulesToTest([...filesUnder('shared'), ...filesUnder('functions')]);
    expect(modules.length).toBeGreaterThan(100);
    expect(placementProblems(filesUnder('test/unit'), modules, TESTS_ELSEWHERE, exists)).toEqual([]);
  });

  it('names each way to break the rule', () => {
    const modules = ['shared/a.ts', 'shared/b.ts', 'shared/c.ts', 'functions/d/handler.ts'];
    const present = new Set([...modules, 'test/unit/shared/a.test.ts', 'test/http/c.test.ts']);
    const problems = placementProblems(
      ['test/unit/shared/a.test.ts', 'test/unit/stray.test.ts', 'test/unit/shared/gone.test.ts', 'test/unit/helper.ts'],
      modules,
      {
        'shared/a.ts': { tests: ['test/http/c.test.ts'] },
        'shared/c.ts': { tests: ['test/http/c.test.ts', 'test/http/missing.test.ts'] },
        'shared/old.ts': { tests: [] },
      },
      (path) => present.has(path),
    );
    expect(problems).toEqual([
      'test/unit/stray.test.ts: mirrors stray.ts, which does not exist',
      'test/unit/shared/gone.test.ts: mirrors shared/gone.ts, which does not exist',
      'test/unit/helper.ts: not <module path>.test.ts; a test of no one module sits elsewhere',
      'shared/b.ts: neither test/unit/shared/b.test.ts nor an entry in test/tests-elsewhere.ts',
      'functions/d/handler.ts: neither test/unit/functions/d/handler.test.ts nor an entry in test/tests-elsewhere.ts',
      'test/tests-elsewhere.ts: shared/a.ts has test/unit/shared/a.test.ts: remove its entry',
      'test/tests-elsewhere.ts: shared/c.ts names test/http/missing.test.ts, which is no test file',
      'test/tests-elsewhere.ts: shared/old.ts is no module of shared/ or functions/',
      'test/tests-elsewhere.ts: shared/old.ts names no test',
    ]);
  });

  it('leaves out declaration files and what is not TypeScript', () => {
    expect(modulesToTest(['shared/a.ts', 'shared/b.d.ts', 'shared/c.json', 'functions/d.generated.ts'])).toEqual([
      'shared/a.ts',
      'functions/d.generated.ts',
    ]);
  });
});
