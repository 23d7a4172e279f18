import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import { testDatabase } from '../support/database';

const db = testDatabase();
const registry = new KeyRegistry(db.documentClient, db.tableName);

describe('KeyRegistry on DynamoDB Local', () => {
  it('resolves each demo key to its plan and limits', async () => {
    expect(await registry.resolve('local-free-key')).toEqual({
      keyId: keyIdOf(hashApiKey('local-free-key')),
      plan: 'free',
      limits: STANDARD_PLAN_LIMITS.free,
    });
    expect((await registry.resolve('local-pro-key'))?.plan).toBe('pro');
    expect((await registry.resolve('local-business-key'))?.plan).toBe('business');
    expect(await registry.resolve('local-enterprise-key')).toMatchObject({ plan: 'enterprise', limits: { perMinute: 5_000, perDay: 1_000_000 } });
  });

  it('does not know other keys', async () => {
    expect(await registry.resolve('local-free-key ')).toBeUndefined();
    expect(await registry.resolve('nope')).toBeUndefined();
  });

  it('stores only the SHA-256 of a key, never the key', async () => {
    const { apiKey, key } = await registry.create('pro');
    const { Items = [] } = await db.documentClient.send(
      new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'APIKEY' } }),
    );
    expect(JSON.stringify(Items)).not.toContain(apiKey);
    const { Item } = await db.documentClient.send(new GetCommand({ TableName: db.tableName, Key: { pk: 'APIKEY', sk: hashApiKey(apiKey) } }));
    expect(Item).toMatchObject({ plan: 'pro' });
    expect(key.keyId).toBe(keyIdOf(hashApiKey(apiKey)));
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
  });

  it('needs limits for an enterprise key and refuses them for a standard plan', async () => {
    await expect(registry.register('x-enterprise', 'enterprise')).rejects.toThrow(/own limits/);
    await expect(registry.register('x-free', 'free', { perMinute: 1, perDay: 1 })).rejects.toThrow(/only enterprise/);
  });
});
