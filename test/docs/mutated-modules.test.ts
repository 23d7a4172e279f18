import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import groups from '../mutation/groups.json';

/** What is mutated is stated once, in docs/testing.md; `npm run mutate` reads it from groups.json: the two must agree. */
const root = join(import.meta.dirname, '..', '..');

describe('docs/testing.md\'s table of mutated modules', () => {
  it('is test/mutation/groups.json\'s groups and modules, in its order', () => {
    const docs = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
    const table = docs.slice(docs.indexOf('<!-- mutated modules: held equal'), docs.indexOf('<!-- mutated modules end -->'));
    const rows = table
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| group') )
      .map((line) => line.split(' | '))
      .map(([group, modules]) => [group?.slice(2), [...(modules ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1])]);
    expect(rows).toEqual(Object.entries(groups).map(([group, { mutate }]) => [group, mutate]));
  });
});
