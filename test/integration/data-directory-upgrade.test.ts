import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput, ensureTable } from '../../local/create-table';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';
import { moveKeysToTheirPartitions } from '../../local/key-layout-upgrade';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { STATUS_INDEX, tableDefinition } from '../../shared/dynamodb/table-definition';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';

/**
 * A data directory `npm start` made before each key had a partition of its own: its table lacks
 * the key index and holds its keys under `pk = APIKEY`. The next `npm start` adds the index and
 * moves the keys, so that keys made with `npm run keys` keep working (in AWS the key mirror
 * rewrites them instead).
 *
 * On a DynamoDB Local of this file's own, holding a few tables as npm start's holds one: in the
 * suite's, with dozens of tables that have TTL on, DynamoDB Local leaves an index added to a table
 * in CREATING for over a minute (measured: 25 such tables, built in under a second; 40, not
 * within a minute; 60 without TTL, at once).
 */
let database: RunningDynamoDbLocal;
const db = { client: undefined as unknown as DynamoDBClient, documentClient: undefined as unknown as DynamoDBDocumentClient };
beforeAll(async () => {
  database = await startDynamoDbLocal();
  db.client = new DynamoDBClient({ endpoint: database.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  db.documentClient = DynamoDBDocumentClient.from(db.client);
});
afterAll(() => database?.stop());

describe('npm start on a data directory of the old key layout', () => {
  it('adds the key index the table lacks and moves every key to its own partition, once, keeping what it was', async () => {
    const tableName = `old-layout-${randomUUID()}`;
    const oldDefinition = { ...tableDefinition, globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.filter((index) => index.indexName === STATUS_INDEX) };
    await db.client.send(new CreateTableCommand(createTableInput(tableName, oldDefinition)));
    const old = (apiKey: string, plan: string, limits: object) => ({ pk: 'APIKEY', sk: hashApiKey(apiKey), plan, limits, createdAt: '2026-01-02T03:04:05.000Z' });
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: old('old-pro-key', 'pro', STANDARD_PLAN_LIMITS.pro) }));
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: old('old-enterprise-key', 'enterprise', { perMinute: 7, perDay: 70 }) }));

    expect(await ensureTable(db.client, tableName)).toBe(false);
    const { Table } = await db.client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus]).sort()).toEqual([
      ['byStatus', 'ACTIVE'],
      ['registeredKeys', 'ACTIVE'],
    ]);

    expect(await moveKeysToTheirPartitions(db.documentClient, tableName)).toBe(2);
    const registry = new KeyRegistry(db.documentClient, tableName);
    expect(await registry.resolve('old-pro-key')).toEqual({ keyId: keyIdOf(hashApiKey('old-pro-key')), plan: 'pro', limits: STANDARD_PLAN_LIMITS.pro });
    expect(await registry.resolve('old-enterprise-key')).toMatchObject({ plan: 'enterprise', limits: { perMinute: 7, perDay: 70 } });
    expect((await registry.list()).map((key) => [key.keyId, key.createdAt]).sort()).toEqual(
      [
        [keyIdOf(hashApiKey('old-pro-key')), '2026-01-02T03:04:05.000Z'],
        [keyIdOf(hashApiKey('old-enterprise-key')), '2026-01-02T03:04:05.000Z'],
      ].sort(),
    );
    const { Items = [] } = await db.documentClient.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'APIKEY' }, ConsistentRead: true }));
    expect(Items).toEqual([]);

    // The next start finds nothing to do.
    expect(await ensureTable(db.client, tableName)).toBe(false);
    expect(await moveKeysToTheirPartitions(db.documentClient, tableName)).toBe(0);
  });

  it('keeps a key of the new layout as it is when the old one is still there too (a move cut short)', async () => {
    const tableName = `half-moved-${randomUUID()}`;
    await ensureTable(db.client, tableName);
    const registry = new KeyRegistry(db.documentClient, tableName);
    await registry.register('moved-key', 'business');
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: { pk: 'APIKEY', sk: hashApiKey('moved-key'), plan: 'free', limits: STANDARD_PLAN_LIMITS.free, createdAt: '2026-01-02T03:04:05.000Z' } }));
    expect(await moveKeysToTheirPartitions(db.documentClient, tableName)).toBe(0);
    expect(await registry.resolve('moved-key')).toMatchObject({ plan: 'business' });
    const { Items = [] } = await db.documentClient.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'APIKEY' }, ConsistentRead: true }));
    expect(Items).toEqual([]);
  });
});
