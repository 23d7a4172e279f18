import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTable } from '../../local/create-table';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry, keyItemKey } from '../../shared/auth/key-registry';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import { testDatabase } from '../support/database';

/**
 * The key registry's less travelled paths on DynamoDB Local, each in a table of its own: keys
 * registered only if absent, index items that describe no key, listings of more than one page, key
 * ids that name no key or more than one, and what a mirrored entry carries.
 */
const db = testDatabase();

async function freshTable(): Promise<{ tableName: string; registry: KeyRegistry }> {
  const tableName = `keys-${randomUUID()}`;
  await ensureTable(db.client, tableName);
  return { tableName, registry: new KeyRegistry(db.documentClient, tableName) };
}

const put = (tableName: string, item: Record<string, unknown>) =>
  db.documentClient.send(new PutCommand({ TableName: tableName, Item: item }));
const stored = async (tableName: string, keyHash: string) =>
  (
    await db.documentClient.send(
      new GetCommand({ TableName: tableName, Key: keyItemKey(keyHash), ConsistentRead: true }),
    )
  ).Item;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('keyItemKey', () => {
  it("is the key's own partition, APIKEY#<hash>, sorted by the hash", () => {
    expect(keyItemKey('abc123')).toStrictEqual({ pk: 'APIKEY#abc123', sk: 'abc123' });
  });
});

describe('register', () => {
  it('stores the hash, the plan, the limits, the index attribute and the creation time, and answers them', async () => {
    const { tableName, registry } = await freshTable();
    const key = await registry.register('branch-pro-key', 'pro');
    const hash = hashApiKey('branch-pro-key');
    expect(key).toStrictEqual({
      keyId: keyIdOf(hash),
      plan: 'pro',
      limits: STANDARD_PLAN_LIMITS.pro,
      createdAt: expect.stringMatching(ISO),
    });
    expect(await stored(tableName, hash)).toStrictEqual({
      pk: `APIKEY#${hash}`,
      sk: hash,
      registry: 'keys',
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10_000 },
      createdAt: key.createdAt,
    });
  });
});

describe('registerIfAbsent', () => {
  it("registers a new key with its plan's limits and a creation time", async () => {
    const { tableName, registry } = await freshTable();
    await registry.registerIfAbsent('absent-free-key', 'free');
    await registry.registerIfAbsent('absent-enterprise-key', 'enterprise', { perMinute: 11, perDay: 111 });
    expect(await registry.resolve('absent-free-key')).toStrictEqual({
      keyId: keyIdOf(hashApiKey('absent-free-key')),
      plan: 'free',
      limits: STANDARD_PLAN_LIMITS.free,
    });
    expect(await registry.resolve('absent-enterprise-key')).toStrictEqual({
      keyId: keyIdOf(hashApiKey('absent-enterprise-key')),
      plan: 'enterprise',
      limits: { perMinute: 11, perDay: 111 },
    });
    const hash = hashApiKey('absent-free-key');
    expect(await stored(tableName, hash)).toStrictEqual({
      pk: `APIKEY#${hash}`,
      sk: hash,
      registry: 'keys',
      plan: 'free',
      limits: { perMinute: 60, perDay: 1_000 },
      createdAt: expect.stringMatching(ISO),
    });
    expect((await registry.list()).map((key) => key.keyId).sort()).toEqual(
      [keyIdOf(hash), keyIdOf(hashApiKey('absent-enterprise-key'))].sort(),
    );
  });

  it('leaves a known key as it is: its plan, limits and creation time', async () => {
    const { tableName, registry } = await freshTable();
    const first = await registry.register('present-key', 'business');
    await registry.registerIfAbsent('present-key', 'free');
    await registry.registerIfAbsent('present-key', 'enterprise', { perMinute: 1, perDay: 1 });
    expect(await registry.resolve('present-key')).toMatchObject({
      plan: 'business',
      limits: STANDARD_PLAN_LIMITS.business,
    });
    expect((await stored(tableName, hashApiKey('present-key')))?.createdAt).toBe(first.createdAt);
  });

  it('needs limits for an enterprise key and refuses them for a standard plan, writing nothing', async () => {
    const { registry } = await freshTable();
    await expect(registry.registerIfAbsent('x-enterprise', 'enterprise')).rejects.toThrow(
      new Error('an enterprise key needs its own limits'),
    );
    await expect(registry.registerIfAbsent('x-pro', 'pro', { perMinute: 1, perDay: 1 })).rejects.toThrow(
      new Error('only enterprise keys have their own limits, not pro keys'),
    );
    expect(await registry.list()).toEqual([]);
  });
});

describe('the listing, of index items that describe no key', () => {
  it('leaves out an item of the index without a known plan or valid limits; list and entries alike', async () => {
    const { tableName, registry } = await freshTable();
    const good = await registry.register('listed-key', 'free');
    const badItems = [
      { plan: 'gold', limits: { perMinute: 1, perDay: 1 } },
      { plan: 'free' },
      { plan: 'pro', limits: { perMinute: 0, perDay: 10 } },
      { limits: { perMinute: 1, perDay: 1 } },
      { plan: 'free', limits: { perMinute: '60', perDay: '1000' } },
    ];
    for (const [i, fields] of badItems.entries()) {
      const hash = `${String(i).repeat(16)}bad`;
      await put(tableName, { ...keyItemKey(hash), registry: 'keys', createdAt: '2026-01-01T00:00:00.000Z', ...fields });
    }
    expect(await registry.list()).toStrictEqual([good]);
    expect(await registry.entries()).toStrictEqual([
      { keyHash: hashApiKey('listed-key'), plan: 'free', limits: STANDARD_PLAN_LIMITS.free },
    ]);
  });

  it('reads a mirrored entry with where it comes from and when the mirror wrote it; a registered one with none of that', async () => {
    const { tableName, registry } = await freshTable();
    const mirroredHash = hashApiKey('mirrored-key');
    expect(
      await registry.putMirrored(
        { keyHash: mirroredHash, plan: 'pro', limits: STANDARD_PLAN_LIMITS.pro, apiKeyId: 'ak-1', usagePlanId: 'up-1' },
        1_700_000_000_000,
      ),
    ).toBe(true);
    await registry.register('registered-key', 'business');
    // Not numbers or strings as the mirror writes them: left out.
    await put(tableName, {
      ...keyItemKey('f'.repeat(64)),
      registry: 'keys',
      plan: 'free',
      limits: { perMinute: 60, perDay: 1_000 },
      syncedAt: '1700000000000',
      apiKeyId: 7,
      usagePlanId: null,
    });
    const entries = await registry.entries();
    expect(entries.find((entry) => entry.keyHash === mirroredHash)).toStrictEqual({
      keyHash: mirroredHash,
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10_000 },
      apiKeyId: 'ak-1',
      usagePlanId: 'up-1',
      syncedAt: 1_700_000_000_000,
    });
    const registered = entries.find((entry) => entry.keyHash === hashApiKey('registered-key'));
    expect(Object.keys(registered ?? {}).sort()).toEqual(['keyHash', 'limits', 'plan']);
    const odd = entries.find((entry) => entry.keyHash === 'f'.repeat(64));
    expect(Object.keys(odd ?? {}).sort()).toEqual(['keyHash', 'limits', 'plan']);
    expect(entries).toHaveLength(3);
  });
});

describe('a listing of more than one page', () => {
  it('follows the index page after page (DynamoDB stops each at 1 MB)', async () => {
    const { tableName, registry } = await freshTable();
    // Four items of ~300 KB in the index (apiKeyId is projected into it): at least two pages.
    const hashes = Array.from({ length: 4 }, (_, i) => `${String(i).repeat(16)}page`);
    for (const hash of hashes) {
      await put(tableName, {
        ...keyItemKey(hash),
        registry: 'keys',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1_000 },
        apiKeyId: 'x'.repeat(300_000),
        createdAt: '2026-01-01T00:00:00.000Z',
      });
    }
    const small = await registry.register('small-key', 'pro');
    const entries = await registry.entries();
    expect(entries.map((entry) => entry.keyHash).sort()).toEqual([...hashes, hashApiKey('small-key')].sort());
    const listed = await registry.list();
    expect(listed).toHaveLength(5);
    expect(listed).toContainEqual(small);
  });
});

describe('a key given by its key id', () => {
  it('is not looked up by a prefix that is no key id (not 16 hex digits)', async () => {
    const { registry } = await freshTable();
    const { apiKey } = await registry.create('free');
    const hash = hashApiKey(apiKey);
    for (const prefix of [hash.slice(0, 15), hash.slice(0, 1), hash.slice(0, 16).toUpperCase(), hash.slice(0, 17)]) {
      expect(await registry.revoke(prefix)).toBe(false);
      expect(await registry.setPlan(prefix, 'pro')).toBeUndefined();
    }
    expect(await registry.resolve(apiKey)).toMatchObject({ plan: 'free' });
    // The key id itself finds it.
    expect(await registry.setPlan(hash.slice(0, 16), 'pro')).toMatchObject({ keyId: hash.slice(0, 16), plan: 'pro' });
  });

  it('that matches two keys finds neither: no guessing', async () => {
    const { tableName, registry } = await freshTable();
    const shared = 'abcabcabcabcabca';
    for (const rest of ['1'.repeat(48), '2'.repeat(48)])
      await put(tableName, {
        ...keyItemKey(shared + rest),
        registry: 'keys',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1_000 },
      });
    expect(await registry.revoke(shared)).toBe(false);
    expect(await registry.setPlan(shared, 'pro')).toBeUndefined();
    expect(await stored(tableName, shared + '1'.repeat(48))).toMatchObject({ plan: 'free' });
    expect(await stored(tableName, shared + '2'.repeat(48))).toMatchObject({ plan: 'free' });
  });

  it('that matches one key found in the index alone, not in the table (the former shared partition), finds nothing', async () => {
    const { tableName, registry } = await freshTable();
    const hash = `cdcdcdcdcdcdcdcd${'0'.repeat(48)}`;
    // The former layout: every key in one partition, APIKEY. The index holds it; the key's own partition does not.
    await put(tableName, {
      pk: 'APIKEY',
      sk: hash,
      registry: 'keys',
      plan: 'free',
      limits: { perMinute: 60, perDay: 1_000 },
    });
    expect(await registry.revoke(hash.slice(0, 16))).toBe(false);
    expect(await registry.setPlan(hash.slice(0, 16), 'pro')).toBeUndefined();
    expect(
      (await db.documentClient.send(new GetCommand({ TableName: tableName, Key: { pk: 'APIKEY', sk: hash } }))).Item,
    ).toMatchObject({ plan: 'free' });
    expect(await stored(tableName, hash)).toBeUndefined();
  });

  it('is read from the table with a consistent read, so that a key just revoked is not found', async () => {
    const { tableName, registry: setUp } = await freshTable();
    const { apiKey, key } = await setUp.create('free');
    const inputs: Record<string, unknown>[] = [];
    const client = new DynamoDBClient({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetItemCommand') inputs.push(args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize' },
    );
    const registry = new KeyRegistry(DynamoDBDocumentClient.from(client), tableName);
    expect(await registry.setPlan(key.keyId, 'pro')).toMatchObject({ plan: 'pro' });
    expect(await registry.revoke(apiKey)).toBe(true);
    expect(await registry.revoke(key.keyId)).toBe(false);
    expect(inputs.length).toBeGreaterThanOrEqual(4);
    for (const input of inputs) expect(input.ConsistentRead).toBe(true);
  });
});

describe('setPlan', () => {
  it('answers the key with its creation time unchanged', async () => {
    const { registry } = await freshTable();
    const { apiKey, key } = await registry.create('free');
    expect(await registry.setPlan(apiKey, 'business')).toStrictEqual({
      keyId: key.keyId,
      plan: 'business',
      limits: STANDARD_PLAN_LIMITS.business,
      createdAt: key.createdAt,
    });
  });

  it('answers no key when the limits it stored are no limits (the key then resolves to nothing either)', async () => {
    const { registry } = await freshTable();
    const { apiKey, key } = await registry.create('free');
    expect(await registry.setPlan(key.keyId, 'enterprise', { perMinute: 0, perDay: 0 })).toBeUndefined();
    expect(await registry.resolve(apiKey)).toBeUndefined();
  });

  it('needs limits for enterprise and refuses them for a standard plan, changing nothing', async () => {
    const { registry } = await freshTable();
    const { apiKey, key } = await registry.create('pro');
    await expect(registry.setPlan(key.keyId, 'enterprise')).rejects.toThrow(
      new Error('an enterprise key needs its own limits'),
    );
    await expect(registry.setPlan(key.keyId, 'business', { perMinute: 5, perDay: 5 })).rejects.toThrow(
      new Error('only enterprise keys have their own limits, not business keys'),
    );
    expect(await registry.resolve(apiKey)).toMatchObject({ plan: 'pro', limits: STANDARD_PLAN_LIMITS.pro });
  });
});
