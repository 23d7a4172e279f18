import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput, ensureTable } from '../../local/create-table';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';
import { moveKeysToTheirPartitions } from '../../local/key-layout-upgrade';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { FORMER_STATUS_INDEX, tableDefinition, tableDefinitionFor } from '../../shared/dynamodb/table-definition';
import { movePetsToTheirShards } from '../../local/pet-layout-upgrade';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
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
    const oldDefinition = { ...tableDefinition, globalSecondaryIndexes: tableDefinitionFor('upgrading').globalSecondaryIndexes.filter((index) => index.indexName === FORMER_STATUS_INDEX) };
    await db.client.send(new CreateTableCommand(createTableInput(tableName, oldDefinition)));
    const old = (apiKey: string, plan: string, limits: object) => ({ pk: 'APIKEY', sk: hashApiKey(apiKey), plan, limits, createdAt: '2026-01-02T03:04:05.000Z' });
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: old('old-pro-key', 'pro', STANDARD_PLAN_LIMITS.pro) }));
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: old('old-enterprise-key', 'enterprise', { perMinute: 7, perDay: 70 }) }));

    expect(await ensureTable(db.client, tableName)).toBe(false);
    const { Table } = await db.client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus]).sort()).toEqual([
      ['byStatus', 'ACTIVE'],
      ['petsById', 'ACTIVE'],
      ['petsByStatus', 'ACTIVE'],
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

  it('moves the pets of the former layout (every pet under PET, ids from the counter) to their shards, with their ids; the counter is retired; once', async () => {
    const tableName = `old-pets-${randomUUID()}`;
    const oldDefinition = { ...tableDefinition, globalSecondaryIndexes: tableDefinitionFor('upgrading').globalSecondaryIndexes.filter((index) => index.indexName === FORMER_STATUS_INDEX) };
    await db.client.send(new CreateTableCommand(createTableInput(tableName, oldDefinition)));
    const statuses = ['available', 'pending', 'sold'] as const;
    const pets = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `old ${i + 1}`, categoryId: 3, status: statuses[i % 3] as (typeof statuses)[number] }));
    for (const pet of pets) {
      await db.documentClient.send(new PutCommand({ TableName: tableName, Item: { pk: 'PET', sk: String(pet.id).padStart(16, '0'), ...pet, createdAt: '2026-01-02T03:04:05.000Z' } }));
    }
    await db.documentClient.send(new PutCommand({ TableName: tableName, Item: { pk: 'SEQUENCE', sk: 'pet', value: 25 } }));

    await ensureTable(db.client, tableName);
    expect(await movePetsToTheirShards(db.client, tableName)).toBe(25);
    const repository = new DynamoDbPetRepository(createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: database.endpoint }), tableName);
    for (const pet of pets) expect(await repository.get(pet.id)).toEqual(pet);
    expect((await repository.list({ afterId: 0, limit: 100, status: undefined })).pets).toEqual(pets);
    expect((await repository.list({ afterId: 0, limit: 100, status: 'sold' })).pets).toEqual(pets.filter((pet) => pet.status === 'sold'));
    // A cursor is "after id N" (shared/pets/cursor.ts): one handed out before the move continues its walk.
    expect(await repository.list({ afterId: 10, limit: 5, status: undefined })).toEqual({ pets: pets.slice(10, 15), hasMore: true });
    const { Items: former = [] } = await db.documentClient.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'PET' }, ConsistentRead: true }));
    expect(former).toEqual([]);
    const { Items: counter = [] } = await db.documentClient.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'SEQUENCE' }, ConsistentRead: true }));
    expect(counter).toEqual([{ pk: 'SEQUENCE', sk: 'pet', value: Number.MAX_SAFE_INTEGER }]);
    // New pets get time-ordered ids, above every old one; the next start finds nothing to do.
    expect((await repository.create({ name: 'new', categoryId: 1, status: 'available' })).id).toBeGreaterThan(25);
    expect(await movePetsToTheirShards(db.client, tableName)).toBe(0);
  });
});
