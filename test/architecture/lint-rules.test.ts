import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The rules `npm run lint` holds (biome.json; docs/testing.md#formatting-and-linting), each shown
 * failing on a file written to break it: the project's own biome.json, copied beside the files into
 * a folder of their own (so the tree is never touched), read by the project's Biome as `biome ci`
 * reads the tree.
 */
const ROOT = join(import.meta.dirname, '../..');
const BIOME = join(ROOT, 'node_modules/.bin/biome');
const folders: string[] = [];

interface Diagnostic {
  readonly category: string;
  readonly location: { readonly path: string; readonly start: { readonly line: number } };
}

/** What `biome ci` reports for these files, laid out under a copy of the project's configuration. */
function check(files: Readonly<Record<string, string>>): { status: number | null; found: string[] } {
  const folder = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  folders.push(folder);
  cpSync(join(ROOT, 'biome.json'), join(folder, 'biome.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  const run = spawnSync(
    BIOME,
    [
      'ci',
      '--colors=off',
      '--vcs-enabled=false',
      '--error-on-warnings',
      '--reporter=json',
      '--max-diagnostics=none',
      '.',
    ],
    { cwd: folder, encoding: 'utf8' },
  );
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  // The formatter's finding is the file's as a whole (the lines it would change are in its diff).
  const found = report.diagnostics.map(({ category, location }) =>
    category === 'format' ? `${location.path} format` : `${location.path}:${location.start.line} ${category}`,
  );
  return { status: run.status, found: found.sort() };
}

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('npm run lint (Biome, biome.json)', () => {
  it('passes a module and a test that keep every rule', () => {
    const { status, found } = check({
      'shared/kept.ts': [
        "import { join } from 'node:path';",
        '',
        'export async function pathOf(folder: string): Promise<string> {',
        "  if (folder === '') throw new Error('no folder');",
        "  return join(folder, 'kept');",
        '}',
        '',
      ].join('\n'),
      'test/kept.test.ts': [
        "import { expect, it } from 'vitest';",
        "import { pathOf } from '../shared/kept';",
        '',
        "it('joins', async () => {",
        "  expect(await pathOf('a')).toBe('a/kept');",
        '});',
        '',
      ].join('\n'),
    });
    expect(found).toEqual([]);
    expect(status).toBe(0);
  });

  it('fails on each broken rule, naming it at its line', () => {
    const { status, found } = check({
      'shared/broken.ts': [
        "import { join } from 'node:path';",
        '',
        'export async function count(n: number): Promise<number> {',
        "  if (n < 0) throw 'negative';",
        '  const unused = n * 2;',
        '  return n;',
        '}',
        '',
        'export function start(): void {',
        '  count(1);',
        '}',
        '',
        'export function five(a: number, b: number, c: number, d: number, e: number): number {',
        '  return a + b + c + d + e;',
        '}',
        '',
      ].join('\n'),
      'test/broken.test.ts': [
        "import { describe, it } from 'vitest';",
        '',
        "describe.only('focused', () => {",
        "  it.skip('skipped', () => {});",
        '});',
        '',
      ].join('\n'),
      // The other folders are linted alike: an unused parameter, a promise where a value is tested.
      'functions/broken/handler.ts': [
        'export function handler(event: string, context: string): string {',
        '  return event;',
        '}',
        '',
      ].join('\n'),
      'local/broken.ts': [
        'export async function ready(): Promise<boolean> {',
        '  return true;',
        '}',
        '',
        'export function check(): string {',
        "  if (ready()) return 'yes';",
        "  return 'no';",
        '}',
        '',
      ].join('\n'),
      // One line past the width of 120 the formatter holds.
      'shared/wide.ts': `export const WIDE = [${Array.from({ length: 30 }, (_, i) => `'v${i}'`).join(', ')}];\n`,
    });
    expect(status).not.toBe(0);
    expect(found).toEqual(
      [
        'functions/broken/handler.ts:1 lint/correctness/noUnusedFunctionParameters',
        'local/broken.ts:6 lint/nursery/noMisusedPromises',
        'shared/broken.ts:1 lint/correctness/noUnusedImports',
        'shared/broken.ts:4 lint/style/useThrowOnlyError',
        'shared/broken.ts:5 lint/correctness/noUnusedVariables',
        'shared/broken.ts:10 lint/nursery/noFloatingPromises',
        'shared/broken.ts:13 lint/complexity/useMaxParams',
        'shared/wide.ts format',
        'test/broken.test.ts:3 lint/suspicious/noFocusedTests',
        'test/broken.test.ts:4 lint/suspicious/noSkippedTests',
      ].sort(),
    );
  });

  it('names in .git-blame-ignore-revs the one commit that formatted the whole tree, which changed nothing but layout', () => {
    const revisions = readFileSync(join(ROOT, '.git-blame-ignore-revs'), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(revisions).toHaveLength(1);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const [revision] = revisions as [string];
    expect(git('log', '-1', '--format=%s', revision)).toMatch(/^Format the whole tree with Biome/);
    // Layout only: the same text, file by file, once blanks, separators, parentheses and quotes
    // (which the formatter may change: 'it\'s' is "it's") are taken out, and the leading `|` it
    // gives a union written over several lines.
    const changed = git('diff-tree', '--no-commit-id', '--name-only', '-r', revision).split('\n');
    const squeezed = (at: string, path: string) =>
      git('show', `${at}:${path}`)
        .replace(/[\s,;()'"\\]/g, '')
        .replace(/(=|as|&|:)\|/g, '$1');
    const differing = changed.filter((path) => squeezed(`${revision}~1`, path) !== squeezed(revision, path));
    expect(changed.length).toBeGreaterThan(300);
    expect(differing).toEqual([]);
  });
});
