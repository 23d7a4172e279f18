import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import groups from '../mutation/groups.json';

/** What is mutated is stated once, in docs/testing.md; `npm run mutate` reads it from groups.json: the two must agree. */
const root = join(import.meta.dirname, '..', '..');

describe("docs/testing.md's table of mutated modules", () => {
  it("is test/mutation/groups.json's groups and modules, in its order", () => {
    const docs = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
    const table = docs.slice(
      docs.indexOf('<!-- mutated modules: held equal'),
      docs.indexOf('<!-- mutated modules end -->'),
    );
    const rows = table
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| group'))
      .map((line) => line.split(' | '))
      .map(([group, modules]) => [
        group?.slice(2),
        [...(modules ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]),
      ]);
    expect(rows).toEqual(Object.entries(groups).map(([group, { mutate }]) => [group, mutate]));
  });
});

describe("docs/testing.md's list of what is left out", () => {
  it('names every source file of shared/, functions/ and codegen/ that no group mutates (by its full path, its folder, or a `*` pattern)', () => {
    const docs = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
    const list = docs.slice(docs.indexOf('Left out, one line each'), docs.indexOf('The modules come in groups'));
    const named = [...list.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    // A full path, a folder (ending in /) or a pattern with `*` for one folder's or file's name.
    const matches = (pattern: string, path: string): boolean =>
      pattern.endsWith('/')
        ? path.startsWith(pattern)
        : new RegExp(`^${pattern.replace(/[.+?^$()|[\]{}\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`).test(path);
    const mutated = Object.values(groups).flatMap(({ mutate }) => mutate);
    const sources = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', 'shared/*.ts', 'functions/*.ts', 'codegen/*.ts'],
      { cwd: root, encoding: 'utf8' },
    )
      .split('\n')
      .filter((path) => path !== '');
    expect(sources.length).toBeGreaterThan(100);
    const unaccounted = sources.filter(
      (path) => !mutated.some((pattern) => matches(pattern, path)) && !named.some((pattern) => matches(pattern, path)),
    );
    expect(unaccounted).toEqual([]);
  });
});
