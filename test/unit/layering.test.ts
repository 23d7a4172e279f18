import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point one way: functions/ → shared/http/ → the domain (shared/pets, shared/limits,
 * shared/auth, shared/dynamodb) → shared/ basics. The domain knows no HTTP, no middy, no Lambda event.
 */
const root = resolve(__dirname, '../..');
const DOMAIN = ['shared/pets', 'shared/limits', 'shared/auth', 'shared/dynamodb'];
const HTTP_IMPORT = /from '(?:\.\.\/)+http\/|from '@middy\/|from 'aws-lambda'/;

describe('the layers', () => {
  it('the domain imports nothing of the HTTP layer', () => {
    const offenders: string[] = [];
    for (const dir of DOMAIN) {
      for (const file of readdirSync(join(root, dir)).filter((name) => name.endsWith('.ts'))) {
        const text = readFileSync(join(root, dir, file), 'utf8');
        for (const line of text.split('\n')) if (HTTP_IMPORT.test(line)) offenders.push(`${dir}/${file}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
