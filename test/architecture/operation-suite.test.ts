import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { included } from '../../vitest.config';
import { NOT_AN_OPERATION_CHANGE, OPERATION_TESTS } from '../../vitest.operation.config';

/**
 * `npm run test:operation` runs every test file that reads the table of functions, the bench's cases,
 * the pets' repository or service, or loads the handlers: a new or changed operation changes what
 * those files iterate over or call, so a change that passes the one command must not fail them in
 * `npm test`. (A file reaching them only through a support module is not seen: review's note.)
 */
const root = resolve(__dirname, '../..');
const READS_THE_TABLE =
  /from '(?:\.\.\/)+(?:functions\/table|bench\/cases|shared\/pets\/(?:repository|pet-writes|pet-reads|pet-writes-store|pet-reads-store|service))'|loadFunctionHandlers\(/;

function testFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? testFiles(join(folder, entry.name))
      : entry.name.endsWith('.test.ts')
        ? [join(folder, entry.name)]
        : [],
  );
}

const inSuite = (path: string) => included(path, OPERATION_TESTS);

describe('npm run test:operation', () => {
  it('runs every test file that reads the table of functions, unless it is named with the reason no operation reaches it', () => {
    const missing = testFiles('test')
      .map((path) => relative(root, join(root, path)))
      .filter((path) => READS_THE_TABLE.test(readFileSync(join(root, path), 'utf8')))
      .filter((path) => !inSuite(path) && !Object.hasOwn(NOT_AN_OPERATION_CHANGE, path));
    expect(missing).toEqual([]);
  });

  it('names only files that exist', () => {
    const all = new Set(testFiles('test'));
    for (const pattern of OPERATION_TESTS.filter((each) => !each.includes('*')))
      expect(all, pattern).toContain(pattern);
    for (const path of Object.keys(NOT_AN_OPERATION_CHANGE)) expect(all, path).toContain(path);
  });
});
