import { request as httpRequest } from 'node:http';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { tableDefinition } from '../../shared/dynamodb/table-definition';
import {
  FREE_KEY,
  expectErrorShape,
  testApiOnClock,
  TEST_KEY,
  type ApiResponse,
  type RequestOptions,
} from '../support/api';
import { checkResponse } from '../support/contract';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * `Idempotency-Key` on POST /v1/pets, against DynamoDB Local through the local server, with the
 * fault proxy in front of DynamoDB (passing everything through unless a test injects a fault):
 * every rule of the contract, and the table afterwards (pets and records, never one without the other).
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const clock = testApiOnClock(T0);
beforeAll(async () => {
  const { config } = await import('../../shared/config');
  expect(config.dynamoDbEndpoint).toBe(proxy.endpoint);
});

const DAY_MS = 24 * 60 * 60 * 1000;
let keys = 0;
/** A key no other test uses. */
const freshKey = (): string => {
  keys += 1;
  return `key-${keys}-${Math.random().toString(36).slice(2)}`;
};

function create(body: unknown, idempotencyKey: string | undefined, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers = {
    ...options.headers,
    ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
  };
  return clock.api().request('POST', '/pets', { ...options, body, headers });
}

const petsNamed = async (name: string) => (await db.storedPets()).filter((pet) => pet.name === name);

/** The items of one partition of the table, read straight from DynamoDB. */
async function partition(pk: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await db.documentClient.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }),
  );
  return Items;
}

/** Where the record of a client's key under an API key lives: a partition of its own. */
const recordPartition = (apiKey: string, key: string) => `IDEMPOTENCY#${keyIdOf(hashApiKey(apiKey))}#${key}`;

/** The record of a client's key under an API key, straight from the table. */
async function recordOf(apiKey: string, key: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db.documentClient.send(
    new GetCommand({
      TableName: db.tableName,
      Key: { pk: recordPartition(apiKey, key), sk: 'record' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

function expectCreated(response: ApiResponse, replayed: boolean): void {
  expect(response.status).toBe(201);
  expect(response.headers.get('location')).toBe(`/v1/pets/${response.body.id}`);
  expect(response.headers.get('idempotent-replayed')).toBe(replayed ? 'true' : null);
}

describe('the first use of a key', () => {
  it('answers the normal 201 and writes the pet together with its record, which expires 24 hours after first use', async () => {
    clock.setTime(T0);
    const key = freshKey();
    const response = await create({ name: 'First', categoryId: 2 }, key);
    expectCreated(response, false);
    expect(response.body).toEqual({ id: expect.any(Number), name: 'First', categoryId: 2, status: 'available' });
    expect(await petsNamed('First')).toEqual([expect.objectContaining({ id: response.body.id })]);
    expect(await recordOf(TEST_KEY, key)).toEqual({
      pk: `IDEMPOTENCY#${keyIdOf(hashApiKey(TEST_KEY))}#${key}`,
      sk: 'record',
      pet: response.body,
      firstUsedAt: new Date(T0).toISOString(),
      // The table's TTL attribute (DynamoDB deletes the record some time after it passes).
      [tableDefinition.timeToLiveAttribute]: T0 / 1000 + 86_400,
    });
  });

  it('keeps each record in a partition of its own: two keys of one API key never share one', async () => {
    clock.setTime(T0);
    const keys = [freshKey(), freshKey()];
    const created = [];
    for (const key of keys) {
      const response = await create({ name: 'Apart', categoryId: 2 }, key);
      expectCreated(response, false);
      created.push(response.body);
    }
    for (const [i, key] of keys.entries())
      expect(await partition(recordPartition(TEST_KEY, key))).toEqual([
        expect.objectContaining({ sk: 'record', pet: created[i] }),
      ]);
    expect(recordPartition(TEST_KEY, keys[0]!)).not.toBe(recordPartition(TEST_KEY, keys[1]!));
    // The API key's shared partition of the old layout holds nothing.
    expect(await partition(`IDEMPOTENCY#${keyIdOf(hashApiKey(TEST_KEY))}`)).toEqual([]);
  });

  it('keeps records out of every listing (no record is a pet, with or without the status filter)', async () => {
    clock.setTime(T0);
    await create({ name: 'Listed once', categoryId: 2 }, freshKey());
    const stored = (await db.storedPets()).map((pet) => pet.id);
    const listed: number[] = [];
    for (const query of ['', '&status=available']) {
      const page = await clock.api().request('GET', `/pets?limit=100${query}`);
      expect(page.status).toBe(200);
      for (const pet of page.body) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
      listed.push(...page.body.map((pet: { id: number }) => pet.id));
    }
    expect(new Set(listed)).toEqual(new Set(stored));
  });

  it('without the header nothing changes: two identical creates make two pets', async () => {
    clock.setTime(T0);
    expectCreated(await create({ name: 'No key', categoryId: 1 }, undefined), false);
    expectCreated(await create({ name: 'No key', categoryId: 1 }, undefined), false);
    expect(await petsNamed('No key')).toHaveLength(2);
  });
});

describe('the same key again within 24 hours', () => {
  it('same body (after normalization): the first answer again with Idempotent-Replayed, nothing written, counted by the rate limits', async () => {
    clock.setTime(T0 + 60_000);
    const key = freshKey();
    const first = await create({ name: 'Replayed', categoryId: 3, status: 'available' }, key);
    expectCreated(first, false);
    const petsBefore = await db.storedPets();
    // Name trimmed, status defaulted, field order and white space ignored.
    const again = await create('{ "categoryId" : 3,\n "name": "  Replayed\\t" }', key, {
      headers: { 'content-type': 'application/json' },
    });
    expectCreated(again, true);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
    expect(await db.storedPets()).toEqual(petsBefore);
    expect((await recordOf(TEST_KEY, key))?.pet).toEqual(first.body);
  });

  it('different body: 422 idempotency_key_reused, and nothing is written', async () => {
    clock.setTime(T0 + 60_000);
    const key = freshKey();
    const first = await create({ name: 'Original', categoryId: 3 }, key);
    expectCreated(first, false);
    const record = await recordOf(TEST_KEY, key);
    for (const body of [
      { name: 'Other', categoryId: 3 },
      { name: 'Original', categoryId: 4 },
      { name: 'Original', categoryId: 3, status: 'sold' },
    ]) {
      const reused = await create(body, key);
      expectErrorShape(reused, 422, 'idempotency_key_reused');
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await petsNamed('Other')).toEqual([]);
    expect(await petsNamed('Original')).toHaveLength(1);
    expect(await recordOf(TEST_KEY, key)).toEqual(record);
  });

  it('the quoted form names the same key: "abc" and abc, escapes unwrapped', async () => {
    clock.setTime(T0 + 60_000);
    const key = freshKey();
    const first = await create({ name: 'Quoted', categoryId: 5 }, `"${key}"`);
    expectCreated(first, false);
    expect(await recordOf(TEST_KEY, key)).toBeDefined();
    const plain = await create({ name: 'Quoted', categoryId: 5 }, key);
    expectCreated(plain, true);
    expect(plain.body).toEqual(first.body);

    const escaped = await create({ name: 'Escaped', categoryId: 5 }, `"a\\"b\\\\c-${key}"`);
    expectCreated(escaped, false);
    expectCreated(await create({ name: 'Escaped', categoryId: 5 }, `a"b\\c-${key}`), true);
    expect(await petsNamed('Escaped')).toHaveLength(1);

    // Not a well-formed quoted form: the key as written, so another key than the unquoted one.
    for (const literal of [`"${key}`, `"${key}\\x"`]) {
      const name = `Literal ${literal}`;
      expectCreated(await create({ name, categoryId: 5 }, literal), false);
      expect(await recordOf(TEST_KEY, literal)).toMatchObject({ pet: { name } });
      expectCreated(await create({ name, categoryId: 5 }, literal), true);
    }
  });

  it('belongs to its API key: the same value under another API key is unrelated', async () => {
    clock.setTime(T0 + 60_000);
    const key = freshKey();
    const mine = await create({ name: 'Two owners', categoryId: 1 }, key);
    const theirs = await create({ name: 'Two owners', categoryId: 1 }, key, { key: 'local-business-key' });
    expectCreated(mine, false);
    expectCreated(theirs, false);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const otherBody = await create({ name: 'Two owners, other body', categoryId: 1 }, key, { key: 'local-pro-key' });
    expectCreated(otherBody, false);
    expect(await petsNamed('Two owners')).toHaveLength(2);
  });
});

describe('after 24 hours', () => {
  it('a key is kept 24 hours from its first use; after that its value names a new create', async () => {
    const start = T0 + 2 * DAY_MS;
    clock.setTime(start);
    const key = freshKey();
    const first = await create({ name: 'Day one', categoryId: 1 }, key);
    expectCreated(first, false);

    clock.setTime(start + DAY_MS - 1_000);
    expectCreated(await create({ name: 'Day one', categoryId: 1 }, key), true);
    expectErrorShape(await create({ name: 'Day two', categoryId: 1 }, key), 422, 'idempotency_key_reused');

    clock.setTime(start + DAY_MS);
    const reused = await create({ name: 'Day two', categoryId: 1 }, key);
    expectCreated(reused, false);
    expect(await recordOf(TEST_KEY, key)).toMatchObject({
      pet: reused.body,
      expiresAt: (start + DAY_MS) / 1000 + 86_400,
    });
    // The same body as the expired record's is a new create too.
    clock.setTime(start + 2 * DAY_MS + 1_000);
    expectCreated(await create({ name: 'Day two', categoryId: 1 }, key), false);
    expect(await petsNamed('Day one')).toHaveLength(1);
    expect(await petsNamed('Day two')).toHaveLength(2);
  });
});

describe('concurrent duplicates', () => {
  it('20 identical requests with one key at once: exactly one pet; each answers 201 with it or 409 with Retry-After; never a 5xx', async () => {
    clock.setTime(T0 + 3 * DAY_MS);
    const key = freshKey();
    // Made certain: the writes are held until all 20 requests have sent theirs, so all 20 read no
    // record and race to the transaction at once.
    proxy.hold(['TransactWriteItems']);
    const sent = Promise.all(Array.from({ length: 20 }, () => create({ name: 'Stampede', categoryId: 6 }, key)));
    try {
      expect(await proxy.held(20)).toEqual(Array(20).fill('TransactWriteItems PET'));
    } finally {
      proxy.release({ stopHolding: true });
    }
    const answers = await sent;
    const pets = await petsNamed('Stampede');
    expect(pets).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) {
        expectErrorShape(answer, 409, 'idempotency_in_progress');
        expect(answer.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
        continue;
      }
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({ id: pets[0]?.id, name: 'Stampede', categoryId: 6, status: 'available' });
    }
    const created = answers.filter((answer) => answer.status === 201);
    // The one that created it has no Idempotent-Replayed; all the others that got the pet do.
    expect(created.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(created.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      created.length - 1,
    );
  });
});

describe('faults and refusals', () => {
  it.each([
    // A transaction that meets another one writing the same record: its outcome is not known yet.
    ['another transaction writing the record', 'transaction-conflict', 409, 'idempotency_in_progress'],
    ['throttling (a 503 raised before the write)', 'throttle', 503, 'service_unavailable'],
    ['a transaction cancelled for throttling', 'transaction-throttled', 503, 'service_unavailable'],
  ] as const)(
    '%s: %s with Retry-After, nothing recorded, and the retry with the same key creates the pet',
    async (_, fault, status, code) => {
      clock.setTime(T0 + 4 * DAY_MS);
      const key = freshKey();
      const name = `Refused by ${fault}`;
      proxy.inject(fault, ['TransactWriteItems']);
      const refused = await create({ name, categoryId: 1 }, key);
      expectErrorShape(refused, status, code);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await petsNamed(name)).toEqual([]);
      expect(await recordOf(TEST_KEY, key)).toBeUndefined();
      proxy.clear();
      expectCreated(await create({ name, categoryId: 1 }, key), false);
      expect(await petsNamed(name)).toHaveLength(1);
    },
  );

  it('its first transaction cancelled for throttling: a new id is drawn at once, and the create answers 201 with one pet and its record', async () => {
    clock.setTime(T0 + 4 * DAY_MS);
    const key = freshKey();
    const before = proxy.seen.get('TransactWriteItems') ?? 0;
    proxy.cancelNextTransaction([
      { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' },
      { Code: 'None' },
    ]);
    const response = await create({ name: 'Throttled once', categoryId: 1 }, key);
    expectCreated(response, false);
    expect((proxy.seen.get('TransactWriteItems') ?? 0) - before).toBe(2);
    expect(await petsNamed('Throttled once')).toEqual([expect.objectContaining({ id: response.body.id })]);
    expect(await recordOf(TEST_KEY, key)).toMatchObject({ pet: response.body });
    expectCreated(await create({ name: 'Throttled once', categoryId: 1 }, key), true);
    expect(await petsNamed('Throttled once')).toHaveLength(1);
  });

  it("the reply of the write lost once: the SDK's retry of the same transaction answers 201 (not a replay), one pet", async () => {
    clock.setTime(T0 + 4 * DAY_MS);
    const key = freshKey();
    const before = proxy.seen.get('TransactWriteItems') ?? 0;
    proxy.inject('lose-reply-once', ['TransactWriteItems']);
    const response = await create({ name: 'Lost once', categoryId: 1 }, key);
    expectCreated(response, false);
    expect((proxy.seen.get('TransactWriteItems') ?? 0) - before).toBe(2);
    expect(await petsNamed('Lost once')).toEqual([expect.objectContaining({ id: response.body.id })]);
  });

  it("every reply of the write lost: 503, and the client's retry with the same key replays the 201 of the pet that was written: one pet", async () => {
    clock.setTime(T0 + 4 * DAY_MS);
    const key = freshKey();
    proxy.inject('lose-reply', ['TransactWriteItems']);
    const lost = await create({ name: 'Lost always', categoryId: 1 }, key);
    expectErrorShape(lost, 503, 'service_unavailable');
    const written = await petsNamed('Lost always');
    expect(written).toHaveLength(1); // DynamoDB did it; nobody heard
    proxy.clear();
    const retried = await create({ name: 'Lost always', categoryId: 1 }, key);
    expectCreated(retried, true);
    expect(retried.body).toEqual({ id: written[0]?.id, name: 'Lost always', categoryId: 1, status: 'available' });
    expect(await petsNamed('Lost always')).toHaveLength(1);
  });

  it('a request refused before its write (400, 401, 429) records nothing: the fixed request with the same key creates', async () => {
    clock.setTime(T0 + 5 * DAY_MS);
    const key = freshKey();
    expectErrorShape(await create({ name: '', categoryId: 1 }, key), 400, 'invalid_request');
    expectErrorShape(
      await create({ name: 'Refused first', categoryId: 1 }, key, { key: 'not-a-key' }),
      401,
      'unauthorized',
    );
    expect(await recordOf(TEST_KEY, key)).toBeUndefined();
    expectCreated(await create({ name: 'Refused first', categoryId: 1 }, key), false);

    // Over the limit: a 429, not a replay, and nothing recorded for a new key.
    clock.setTime(T0 + 5 * DAY_MS + 60_000);
    const freeKey = freshKey();
    const before = await create({ name: 'Free replay', categoryId: 1 }, freeKey, { key: FREE_KEY });
    expectCreated(before, false);
    for (let i = 0; i < 59; i += 1)
      expect((await clock.api().request('GET', '/pets?limit=1', { key: FREE_KEY })).status).toBe(200);
    const limited = await create({ name: 'Free replay', categoryId: 1 }, freeKey, { key: FREE_KEY });
    expectErrorShape(limited, 429, 'rate_limited');
    expect(limited.headers.get('idempotent-replayed')).toBeNull();
    const unrecorded = freshKey();
    expectErrorShape(
      await create({ name: 'Free new', categoryId: 1 }, unrecorded, { key: FREE_KEY }),
      429,
      'rate_limited',
    );
    expect(await recordOf(FREE_KEY, unrecorded)).toBeUndefined();

    clock.setTime(T0 + 5 * DAY_MS + 120_000);
    expectCreated(await create({ name: 'Free replay', categoryId: 1 }, freeKey, { key: FREE_KEY }), true);
    expectCreated(await create({ name: 'Free new', categoryId: 1 }, unrecorded, { key: FREE_KEY }), false);
    expect(await petsNamed('Free replay')).toHaveLength(1);
  });
});

/** A POST with raw header lines (fetch joins a repeated header into one value). */
function rawCreate(headerLines: [string, string][]): Promise<ApiResponse> {
  const url = new URL(`${clock.api().baseUrl}/pets`);
  const body = JSON.stringify({ name: 'Raw', categoryId: 1 });
  // Given as raw lines, the request gets no Host of Node's own.
  const headers = [
    ['Host', url.host],
    ['Authorization', `Bearer ${TEST_KEY}`],
    ['Content-Type', 'application/json'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ...headerLines,
  ].flat();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
      (response) => {
        let text = '';
        response.setEncoding('latin1');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const fetchHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) fetchHeaders.set(name, String(value));
          try {
            checkResponse({
              method: 'POST',
              url: url.href,
              status: response.statusCode ?? 0,
              headers: fetchHeaders,
              text,
            });
          } catch (error) {
            reject(new Error(`${String(error)}: ${text}`));
            return;
          }
          resolve({ status: response.statusCode ?? 0, headers: fetchHeaders, text, body: JSON.parse(text) });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe("the key's form", () => {
  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space inside', 'a b'],
    ['a tab inside', 'a\tb'],
    ['a character outside ASCII', 'cl\u00e9'],
    ['empty quotes', '""'],
    ['a space inside quotes', '"a b"'],
    ['257 characters in quotes', `"${'k'.repeat(256)}"`],
  ])('%s: 400 invalid_request naming Idempotency-Key, and nothing written', async (_, value) => {
    clock.setTime(T0 + 6 * DAY_MS);
    const before = (await db.storedPets()).length;
    const response = await rawCreate([['Idempotency-Key', value]]);
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.details).toEqual([{ path: 'header.Idempotency-Key', message: expect.any(String) }]);
    expect(response.body.message).toContain('Idempotency-Key');
    expect((await db.storedPets()).length).toBe(before);
  });

  it('given twice: 400 naming Idempotency-Key, even with equal values', async () => {
    clock.setTime(T0 + 6 * DAY_MS);
    for (const second of ['other', 'same']) {
      const response = await rawCreate([
        ['Idempotency-Key', 'same'],
        ['idempotency-key', second],
      ]);
      expectErrorShape(response, 400, 'invalid_request');
      expect(response.body.details).toEqual([
        { path: 'header.Idempotency-Key', message: 'must be given at most once' },
      ]);
    }
  });

  it('accepts 1 and 255 visible ASCII characters, and 255 in quotes', async () => {
    clock.setTime(T0 + 6 * DAY_MS);
    // Every visible ASCII character once, padded to 255.
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const longest = visible + 'k'.repeat(255 - visible.length);
    for (const value of ['!', longest, `"${'q'.repeat(255)}"`]) {
      const response = await rawCreate([['Idempotency-Key', value]]);
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
    }
    // The longest key (`#` among its characters) is part of its record's partition key, alone in it.
    expect(await partition(recordPartition(TEST_KEY, longest))).toEqual([expect.objectContaining({ sk: 'record' })]);
  });
});
