import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The line width of 120 (biome.json): the formatter holds it for code, but cannot break a long
 * string or comment. Those lines may only become fewer: each folder's count is recorded here, a
 * new one fails this test (naming it), and a count that fell must be lowered here, so the record
 * stays tight (docs/testing.md#formatting-and-linting). Generated files, which their generators
 * lay out, are left out as Biome leaves them out.
 */
const WIDTH = 120;
const LONG_LINES_TODAY: Readonly<Record<string, number>> = {
  '.': 7,
  bench: 105,
  client: 0,
  codegen: 20,
  functions: 26,
  infra: 82,
  local: 42,
  openapi: 34,
  shared: 120,
  test: 619,
};

const ROOT = join(import.meta.dirname, '../..');
const SOURCE = /\.(ts|mts|mjs)$/;
const LEFT_OUT = [/\.generated\.ts$/, /^client\/schema\.d\.ts$/, /^test\/codegen\/fixtures\//];

function longLinesByFolder(): { counts: Record<string, number>; lines: string[] } {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => SOURCE.test(path) && !LEFT_OUT.some((pattern) => pattern.test(path)));
  const counts: Record<string, number> = Object.fromEntries(Object.keys(LONG_LINES_TODAY).map((folder) => [folder, 0]));
  const lines: string[] = [];
  for (const path of files) {
    const folder = path.includes('/') ? (path.split('/')[0] as string) : '.';
    readFileSync(join(ROOT, path), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (line.length <= WIDTH) return;
        counts[folder] = (counts[folder] ?? 0) + 1;
        lines.push(`${path}:${index + 1} (${line.length})`);
      });
  }
  return { counts, lines };
}

describe(`lines past ${WIDTH} characters (strings and comments the formatter cannot break)`, () => {
  it('are no more, folder by folder, than recorded, and the record is lowered when they become fewer', () => {
    const { counts, lines } = longLinesByFolder();
    const grown = Object.keys(counts).filter((folder) => (counts[folder] ?? 0) > (LONG_LINES_TODAY[folder] ?? 0));
    // On failure: the long lines of the folders that grew, to find the new one.
    const ofGrown = lines.filter((line) => grown.some((folder) => line.startsWith(`${folder}/`)));
    expect({ counts, ofGrown: grown.length > 0 ? ofGrown : [] }).toEqual({ counts: LONG_LINES_TODAY, ofGrown: [] });
  });
});
