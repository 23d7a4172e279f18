import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTable } from '../../local/create-table';
import { checkDeclaredRights, runAs } from '../../local/dynamodb-rights';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { testDatabase } from '../support/database';

const db = testDatabase();
const registry = new KeyRegistry(db.documentClient, db.tableName);

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

describe('KeyRegistry on DynamoDB Local', () => {
  it('resolves each demo key to its plan and limits', async () => {
    expect(await registry.resolve('local-free-key')).toEqual({
      keyId: keyIdOf(hashApiKey('local-free-key')),
      plan: 'free',
      limits: STANDARD_PLAN_LIMITS.free,
    });
    expect((await registry.resolve('local-pro-key'))?.plan).toBe('pro');
    expect((await registry.resolve('local-business-key'))?.plan).toBe('business');
    expect(await registry.resolve('local-enterprise-key')).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 5_000, perDay: 1_000_000 },
    });
  });

  it('does not know other keys', async () => {
    expect(await registry.resolve('local-free-key ')).toBeUndefined();
    expect(await registry.resolve('nope')).toBeUndefined();
  });

  it('stores only the SHA-256 of a key, never the key', async () => {
    const { apiKey, key } = await registry.create('pro');
    const hash = hashApiKey(apiKey);
    const items = await partition(`APIKEY#${hash}`);
    expect(JSON.stringify(items)).not.toContain(apiKey);
    const { Item } = await db.documentClient.send(
      new GetCommand({ TableName: db.tableName, Key: { pk: `APIKEY#${hash}`, sk: hash } }),
    );
    expect(Item).toMatchObject({ plan: 'pro' });
    expect(key.keyId).toBe(keyIdOf(hash));
  });

  it('keeps each key in a partition of its own (APIKEY#<hash>), so that no two lookups share one', async () => {
    const created = await Promise.all([registry.create('free'), registry.create('free'), registry.create('pro')]);
    const hashes = created.map(({ apiKey }) => hashApiKey(apiKey));
    for (const hash of hashes)
      expect(await partition(`APIKEY#${hash}`)).toEqual([expect.objectContaining({ pk: `APIKEY#${hash}`, sk: hash })]);
    // The shared partition of the old layout holds nothing.
    expect(await partition('APIKEY')).toEqual([]);
  });

  it('makes random keys of at least 128 bits', async () => {
    const { apiKey } = await registry.create('free');
    expect(apiKey).toMatch(/^pet_[A-Za-z0-9_-]{32}$/); // 24 random bytes = 192 bits
    expect((await registry.create('free')).apiKey).not.toBe(apiKey);
  });

  it('lists keys and revokes one by key id, after which it no longer resolves', async () => {
    const { apiKey, key } = await registry.create('business');
    expect((await registry.list()).map((k) => k.keyId)).toContain(key.keyId);
    expect(await registry.revoke(key.keyId)).toBe(true);
    expect(await registry.resolve(apiKey)).toBeUndefined();
    expect(await registry.revoke(key.keyId)).toBe(false);
    expect((await registry.list()).map((k) => k.keyId)).not.toContain(key.keyId);
  });

  it('moves a key to another plan by key id or by the key itself', async () => {
    const { apiKey, key } = await registry.create('free');
    expect(await registry.setPlan(key.keyId, 'pro')).toMatchObject({
      keyId: key.keyId,
      plan: 'pro',
      limits: STANDARD_PLAN_LIMITS.pro,
      createdAt: key.createdAt,
    });
    expect(await registry.resolve(apiKey)).toMatchObject({ plan: 'pro' });
    expect(await registry.setPlan(apiKey, 'enterprise', { perMinute: 7, perDay: 70 })).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 7, perDay: 70 },
    });
    expect((await registry.list()).find((listed) => listed.keyId === key.keyId)).toMatchObject({
      plan: 'enterprise',
      createdAt: key.createdAt,
    });
    expect(await registry.setPlan('0123456789abcdef', 'pro')).toBeUndefined();
  });

  it('needs limits for an enterprise key and refuses them for a standard plan', async () => {
    await expect(registry.register('x-enterprise', 'enterprise')).rejects.toThrow(/own limits/);
    await expect(registry.register('x-free', 'free', { perMinute: 1, perDay: 1 })).rejects.toThrow(/only enterprise/);
  });
});

describe("the key index (the registry's listing)", () => {
  it('finds every key and nothing else, with one Query of the index: no Scan, no read of the pets', async () => {
    // A table of its own, holding pets, an idempotency record and three keys.
    const tableName = `keys-${randomUUID()}`;
    await ensureTable(db.client, tableName);
    const pets = new DynamoDbPetRepository(db.client, tableName);
    for (let i = 0; i < 5; i += 1) await pets.create({ name: `Pet ${i}`, categoryId: 1, status: 'available' });
    await pets.createOnce(
      { name: 'Keyed', categoryId: 1, status: 'available' },
      { owner: '0123456789abcdef', value: 'once' },
    );
    const setUp = new KeyRegistry(db.documentClient, tableName);
    const keys = [
      await setUp.create('free'),
      await setUp.create('pro'),
      await setUp.create('enterprise', { perMinute: 9, perDay: 99 }),
    ];

    // Listed by a caller whose only right is Query on the index: a Scan, or a Query of the table, is refused.
    const client = DynamoDBDocumentClient.from(db.client);
    checkDeclaredRights(client);
    const listing = new KeyRegistry(client, tableName);
    const caller = {
      functionName: 'keyMirror' as const,
      rights: [{ actions: ['Query'] as const, index: 'registeredKeys' as const }],
      tableName,
    };
    const entries = await runAs(caller, () => listing.entries());
    expect(entries.map((entry) => entry.keyHash).sort()).toEqual(keys.map(({ apiKey }) => hashApiKey(apiKey)).sort());
    expect(entries.find((entry) => entry.keyHash === hashApiKey(keys[2]!.apiKey))).toEqual({
      keyHash: hashApiKey(keys[2]!.apiKey),
      plan: 'enterprise',
      limits: { perMinute: 9, perDay: 99 },
    });
    const listed = await runAs(caller, () => listing.list());
    expect(listed.sort((a, b) => a.keyId.localeCompare(b.keyId))).toEqual(
      keys.map(({ key }) => key).sort((a, b) => a.keyId.localeCompare(b.keyId)),
    );
  });
});
