import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { startTestApi, type ApiResponse, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';

/**
 * The local server refuses nothing that AWS would not: in AWS each request gets a function
 * instance (and a DynamoDB client) of its own, so 500 requests at once are 500 answers, not 503s
 * of a local pool. Here 500 at once reach the one process of the local server, in front of
 * DynamoDB Local; every key's limits leave room for all of them, so every answer is the
 * operation's own: 200 or 201, never a 429, a 503 or another 5xx. The heaviest, 500 listPets, is
 * some 5,000 DynamoDB Local calls (a page reads 8 shards): 5 to 9 s on two idle cores, past a
 * request's 10 s on a busy machine (35 of 500 answered 503 at a load of 5), where the 503 is the
 * deadline's, as decisions.md allows. So the server here gives each request 10 minutes: what this
 * file measures is concurrency alone, whatever the machine's speed (the 10 s deadline has tests of
 * its own: test/integration/datastore-faults.test.ts). docs/testing.md#many-requests-at-once.
 */
const AT_ONCE = 500;
/** Each request's time here: far beyond what 500 at once take on a busy machine. */
const REQUEST_TIME_MS = 600_000;
/** Far above what one file sends, so that the rate limiter admits every request. */
const ROOMY = { perMinute: 20_000, perDay: 1_000_000 };
/** How many keys "many keys" spreads the requests over. */
const MANY = 100;

let api: TestApi;
const db = testDatabase();
const registry = new KeyRegistry(db.documentClient, db.tableName);
/** Pets made before the bursts, for getPet. */
const seeded: { id: number; name: string; categoryId: number; status: string }[] = [];

beforeAll(async () => {
  api = await startTestApi(undefined, { functionTimeoutMs: REQUEST_TIME_MS });
  const key = await freshKeys(1);
  for (let i = 0; i < 20; i += 1) {
    const created = await api.request('POST', '/pets', {
      key: key[0] as string,
      body: { name: `Seed ${i}`, categoryId: 4 },
    });
    expect(created.status).toBe(201);
    seeded.push(created.body);
  }
});
afterAll(() => api.close());

/** Keys of their own for one burst: none is in the authorizer's cache yet, as for a client's first requests. */
async function freshKeys(count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => `at-once-${randomUUID()}`);
  await Promise.all(keys.map((key) => registry.register(key, 'enterprise', ROOMY)));
  return keys;
}

type Kind = 'getPet' | 'listPets' | 'createPet';

function send(kind: Kind, key: string, i: number): Promise<ApiResponse> {
  switch (kind) {
    case 'getPet':
      return api.request('GET', `/pets/${(seeded[i % seeded.length] as { id: number }).id}`, { key });
    case 'listPets':
      return api.request('GET', '/pets?limit=10', { key });
    case 'createPet':
      return api.request('POST', '/pets', { key, body: { name: `At once ${i}`, categoryId: 5 } });
  }
}

/** Each answer is the operation's own success: getPet the pet asked for, listPets a page, createPet the new pet. */
function expectServed(kind: Kind, response: ApiResponse, i: number): void {
  switch (kind) {
    case 'getPet':
      expect([kind, response.status, response.body]).toEqual([kind, 200, seeded[i % seeded.length]]);
      return;
    case 'listPets':
      expect([kind, response.status]).toEqual([kind, 200]);
      expect(response.body).toHaveLength(10);
      return;
    case 'createPet':
      expect([kind, response.status, response.body]).toEqual([
        kind,
        201,
        { id: expect.any(Number), name: `At once ${i}`, categoryId: 5, status: 'available' },
      ]);
  }
}

/** Every created pet is stored: getPet answers it, as created (read a hundred at a time: this checks storage, not the burst). */
async function expectEachReadable(created: ApiResponse[], key: string): Promise<void> {
  for (let start = 0; start < created.length; start += 100) {
    const batch = created.slice(start, start + 100);
    const reads = await Promise.all(batch.map((response) => api.request('GET', `/pets/${response.body.id}`, { key })));
    reads.forEach((read, i) => {
      expect([read.status, read.body]).toEqual([200, batch[i]?.body]);
    });
  }
}

const kindOf = (mix: readonly Kind[], i: number): Kind => mix[i % mix.length] as Kind;

const ONE_KEY = 1;

describe(`${AT_ONCE} requests at once through the local server`, () => {
  it.each<[string, readonly Kind[], number]>([
    ['getPet, one key', ['getPet'], ONE_KEY],
    ['listPets, one key', ['listPets'], ONE_KEY],
    ['createPet, one key', ['createPet'], ONE_KEY],
    ['mixed (getPet, listPets, createPet), one key', ['getPet', 'listPets', 'createPet'], ONE_KEY],
    [`listPets, ${MANY} keys`, ['listPets'], MANY],
    [`mixed (getPet, listPets, createPet), ${MANY} keys`, ['getPet', 'listPets', 'createPet'], MANY],
  ])(
    '%s: every one served (no 503, no 5xx), every create stored and readable',
    async (_, mix, keyCount) => {
      const keys = await freshKeys(keyCount);
      const keyOf = (i: number) => keys[i % keys.length] as string;
      const responses = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => send(kindOf(mix, i), keyOf(i), i)));

      const statuses = new Map<number, number>();
      for (const response of responses) statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const expected = new Map<number, number>();
      for (let i = 0; i < AT_ONCE; i += 1) {
        const status = kindOf(mix, i) === 'createPet' ? 201 : 200;
        expected.set(status, (expected.get(status) ?? 0) + 1);
      }
      // All at once first, so that a failure shows how many of each status came.
      expect(Object.fromEntries(statuses)).toEqual(Object.fromEntries(expected));
      responses.forEach((response, i) => {
        expectServed(kindOf(mix, i), response, i);
      });

      const created = responses.filter((_, i) => kindOf(mix, i) === 'createPet');
      expect(new Set(created.map((response) => response.body.id)).size).toBe(created.length);
      await expectEachReadable(created, keys[0] as string);
      // Each request has REQUEST_TIME_MS here, and this client's 500 connections can take a while to open on a busy machine.
    },
    REQUEST_TIME_MS,
  );
});
