import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point one way: functions/ → shared/http/ → the domain (shared/pets, shared/limits,
 * shared/auth, shared/dynamodb) → shared/ basics. The domain knows no HTTP, no middy, no Lambda event;
 * and shared/ knows nothing above it: the table of functions lives with the functions
 * (functions/table.ts), the bench's types with the bench (bench/bench-case.ts).
 */
const root = resolve(__dirname, '../..');
const DOMAIN = ['shared/pets', 'shared/limits', 'shared/auth', 'shared/dynamodb'];
const HTTP_IMPORT = /from '(?:\.\.\/)+http\/|from '@middy\/|from 'aws-lambda'/;
/** The rooms above shared/: what they hold uses shared/, never the reverse. */
const ROOMS_ABOVE_SHARED = ['functions', 'bench', 'infra', 'local', 'openapi', 'codegen'];

/** Every source file under a folder of the project, recursively, from the root. */
function sourcesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourcesUnder(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Each module a file names: static imports and re-exports (type-only too), `import()` and `require()`. */
function specifiersOf(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [
    /\bfrom\s+'([^']+)'/g,
    /\bimport\s+'([^']+)'/g,
    /\bimport\(\s*'([^']+)'\s*\)/g,
    /\brequire\(\s*'([^']+)'\s*\)/g,
  ]) {
    for (const match of text.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

describe('the layers', () => {
  it('the domain imports nothing of the HTTP layer', () => {
    const offenders: string[] = [];
    for (const dir of DOMAIN) {
      for (const file of readdirSync(join(root, dir)).filter((name) => name.endsWith('.ts'))) {
        const text = readFileSync(join(root, dir, file), 'utf8');
        for (const line of text.split('\n'))
          if (HTTP_IMPORT.test(line)) offenders.push(`${dir}/${file}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('shared/ imports from no room above it (functions/, bench/, infra/, local/, openapi/, codegen/): a relative import stays inside shared/', () => {
    const files = sourcesUnder('shared');
    const offenders: string[] = [];
    for (const file of files) {
      for (const specifier of specifiersOf(readFileSync(join(root, file), 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(root, resolve(root, dirname(file), specifier))
          .split(sep)
          .join('/');
        if (!target.startsWith('shared/'))
          offenders.push(
            `${file} imports ${specifier} (${target}${ROOMS_ABOVE_SHARED.includes(target.split('/')[0] as string) ? ', a room above shared/' : ''})`,
          );
      }
    }
    expect(offenders).toEqual([]);
    // The walk reaches the nested folders, and reads their imports.
    expect(files).toEqual(
      expect.arrayContaining([
        'shared/http/middleware/validate-request.ts',
        'shared/release-check/run-release-check.ts',
      ]),
    );
    expect(
      specifiersOf("import type { A } from './a';\nexport { B } from '../b';\nconst c = await import('./c');"),
    ).toEqual(['./a', '../b', './c']);
  });
});
