import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringLike } from '../../../local/dynamodb-rights';
import { loadFunctionHandlers } from '../../../local/server';
import { hashApiKey } from '../../../shared/auth/api-key-hash';
import { addressSubject } from '../../../shared/auth/authorize';
import { keyItemKey } from '../../../shared/auth/key-registry';
import { ITEM_PARTITIONS, tableDefinition } from '../../../shared/dynamodb/table-definition';
import { idempotencyRecordKey } from '../../../shared/pets/pet-writes';
import { FUNCTION_NAMES, FUNCTIONS, OPERATION_IDS, OPERATIONS } from '../../../functions/table';
import { DOCUMENTATION_ROUTES } from '../../../shared/http/routes';

/**
 * The one declaration of each function (functions/table.ts) is complete and consistent: what the
 * type system cannot see is checked here (the stack, the local server and the document have
 * their own tests, which derive their expectations from the same table).
 */
const root = join(import.meta.dirname, '..', '..', '..');

describe('the function declarations', () => {
  it("name a handler module that exists for every function, and the local server loads each one's handler", async () => {
    for (const name of FUNCTION_NAMES)
      expect([name, existsSync(join(root, FUNCTIONS[name].handler))]).toEqual([name, true]);
    const handlers = await loadFunctionHandlers();
    for (const name of [...OPERATION_IDS, 'authorizer', 'apiDocs'] as const)
      expect([name, typeof handlers[name]]).toEqual([name, 'function']);
  });

  it('give each route one function: no two operations or documentation routes share a method and path', () => {
    const routes = [...OPERATION_IDS.map((id) => OPERATIONS[id].route), ...Object.values(DOCUMENTATION_ROUTES)].map(
      ({ method, path }) => `${method} ${path}`,
    );
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("declare the path parameters each operation's schema reads", () => {
    for (const operationId of OPERATION_IDS) {
      const inPath = [...OPERATIONS[operationId].route.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]).sort();
      const request = OPERATIONS[operationId].request as { path?: { def: { shape: Record<string, unknown> } } };
      const inSchema = Object.keys(request.path?.def.shape ?? {}).sort();
      expect([operationId, inPath]).toEqual([operationId, inSchema]);
    }
  });

  it("give every operation the right to count its key's requests, which the rate limiter makes before any answer", () => {
    for (const operationId of OPERATION_IDS) {
      const counts = OPERATIONS[operationId].dynamodb.some(
        (right) =>
          'items' in right &&
          right.items.includes('keyCounters' as never) &&
          right.actions.includes('UpdateItem' as never),
      );
      expect([operationId, counts]).toEqual([operationId, true]);
    }
  });

  it('name the partition keys the code writes (pets and the id sequence take theirs from ITEM_PARTITIONS; keys, records and counters match its patterns)', () => {
    // One partition per record and per key: the key id (or the key's hash) is part of the partition key.
    expect(stringLike(ITEM_PARTITIONS.idempotencyRecords, idempotencyRecordKey('0123456789abcdef', 'a#b').pk)).toBe(
      true,
    );
    expect(idempotencyRecordKey('0123456789abcdef', 'a#b')).toEqual({
      pk: 'IDEMPOTENCY#0123456789abcdef#a#b',
      sk: 'record',
    });
    // The key id's fixed length is what makes that join unambiguous: anything else is refused.
    expect(() => idempotencyRecordKey('0123456789abcde#', 'key')).toThrow('key id');
    const hash = hashApiKey('some key');
    expect(keyItemKey(hash)).toEqual({ pk: `APIKEY#${hash}`, sk: hash });
    expect(stringLike(ITEM_PARTITIONS.keyRegistry, keyItemKey(hash).pk)).toBe(true);
    expect(stringLike(ITEM_PARTITIONS.keyRegistry, 'APIKEY')).toBe(false);
    // The counters' partitions: RATE#<subject> (shared/limits/counter-store.ts), the subject key#<keyId> or ip#<address>.
    expect(stringLike(ITEM_PARTITIONS.addressCounters, `RATE#${addressSubject('192.0.2.1')}`)).toBe(true);
    expect(stringLike(ITEM_PARTITIONS.keyCounters, `RATE#${addressSubject('192.0.2.1')}`)).toBe(false);
    expect(stringLike(ITEM_PARTITIONS.keyCounters, 'RATE#key#0123456789abcdef')).toBe(true);
  });

  it('name only indexes the table has; the key mirror lists the registry through the key index', () => {
    const indexes = tableDefinition.globalSecondaryIndexes.map((index) => index.indexName);
    for (const name of FUNCTION_NAMES) {
      for (const right of FUNCTIONS[name].dynamodb)
        if ('index' in right) expect([name, indexes]).toEqual([name, expect.arrayContaining([right.index])]);
    }
    expect(FUNCTIONS.keyMirror.dynamodb).toContainEqual({ actions: ['Query'], index: 'registeredKeys' });
  });

  it("fail the local server's start when a handler module is missing or exports no handler (planted)", async () => {
    await expect(
      loadFunctionHandlers({ ...FUNCTIONS, getPet: { ...FUNCTIONS.getPet, handler: 'functions/notThere.ts' } }),
    ).rejects.toThrow();
    await expect(
      loadFunctionHandlers({ ...FUNCTIONS, getPet: { ...FUNCTIONS.getPet, handler: 'shared/clock.ts' } }),
    ).rejects.toThrow('shared/clock.ts (the handler of getPet as declared) exports no function named handler');
  });
});
