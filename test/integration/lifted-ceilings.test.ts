import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { testDatabase } from '../support/database';
import { startPartitionModel, type PartitionModel } from '../support/partition-model';

/**
 * The two ceilings lifted by spreading items over partitions (docs/scale-and-cost.md), seen
 * through the partition model: key lookups of different keys, and idempotency records of one API
 * key, no longer share a partition.
 */
const db = testDatabase();
let model: PartitionModel;
let modelled: DynamoDBClient;

beforeAll(async () => {
  model = await startPartitionModel(db.endpoint, { factor: 1_000 });
  modelled = new DynamoDBClient({
    endpoint: model.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(() => model.close());

describe('the lifted ceilings', () => {
  it('a burst of lookups of different keys is served: each key is its own partition (one partition would serve 6 a second at 1/1000)', async () => {
    const keys = Array.from({ length: 12 }, (_, n) => `lifted-lookup-key-${n}`);
    const direct = new KeyRegistry(db.documentClient, db.tableName);
    for (const key of keys) await direct.register(key, 'pro');
    model.reset();
    const registry = new KeyRegistry(DynamoDBDocumentClient.from(modelled), db.tableName);
    const principals = await Promise.all(keys.map((key) => registry.resolve(key)));
    expect(principals.every((principal) => principal?.plan === 'pro')).toBe(true);
    expect(model.throttledInOrder()).toEqual([]);
    expect(model.use().filter((use) => use.readUnits > 0)).toHaveLength(keys.length);
  });

  it("one API key's idempotency records are each in a partition of their own", async () => {
    model.factor = 1; // nothing throttles: this counts partitions
    model.reset();
    const repository = new DynamoDbPetRepository(modelled, db.tableName);
    for (let n = 0; n < 5; n += 1)
      await repository.createOnce(
        { name: `Lifted ${n}`, categoryId: 1, status: 'available' },
        { owner: '0123456789abcdef', value: `request-${n}` },
      );
    const recordPartitions = model.use().filter((use) => use.partition.startsWith('IDEMPOTENCY#'));
    expect(recordPartitions).toHaveLength(5);
    // Each: the consistent read of the record, then its transactional put.
    for (const use of recordPartitions) expect(use).toMatchObject({ readUnits: 1, writeUnits: 2 });
  });
});
