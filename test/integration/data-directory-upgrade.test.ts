import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput, ensureTable } from '../../local/create-table';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';
import { formerLayoutRefusal, formerLayoutsIn } from '../../local/former-layouts';
import { checkCopy, deleteCopiedFormerPets, hasFormerPets } from '../../local/pet-layout-upgrade';
import { hashApiKey } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { tableDefinition, type GlobalIndexDefinition } from '../../shared/dynamodb/table-definition';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';

/**
 * A table of an earlier version, as `npm start` finds it in an older data directory (or at a
 * DynamoDB Local's DYNAMODB_ENDPOINT). The indexes it lacks are added (local/create-table.ts).
 * Pets or keys of a former layout (every pet under `PET`, every key under `APIKEY`) are no longer
 * moved by this version: npm start detects them and refuses, naming the last version that moves
 * them (local/former-layouts.ts; its words are held below, and
 * test/http/local-start.test.ts runs the refusal of a data directory end to end; a
 * DYNAMODB_ENDPOINT's table is refused by the same code, named by start.ts, with no test of its own). What that version leaves behind (the retired counter, the former status index) is no
 * former layout. What is left of the operator's steps, `pets-upgrade check` and `delete-former`,
 * runs on a table that still holds former pets beside their copies.
 *
 * On a DynamoDB Local of this file's own, holding a few tables as npm start's holds one: in the
 * suite's, with dozens of tables that have TTL on, DynamoDB Local leaves an index added to a table
 * in CREATING for over a minute (measured: 25 such tables, built in under a second; 40, not
 * within a minute; 60 without TTL, at once).
 */
let database: RunningDynamoDbLocal;
const db = {
  client: undefined as unknown as DynamoDBClient,
  documentClient: undefined as unknown as DynamoDBDocumentClient,
};
beforeAll(async () => {
  database = await startDynamoDbLocal();
  db.client = new DynamoDBClient({
    endpoint: database.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  db.documentClient = DynamoDBDocumentClient.from(db.client);
});
afterAll(() => database?.stop());

/** The former status index, as tables of the former pets layout have it (and keep, once moved); no index of this version's definition. */
const FORMER_STATUS_INDEX: GlobalIndexDefinition = {
  indexName: 'byStatus' as never,
  partitionKey: { name: 'status', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
  projectedAttributes: ['name', 'categoryId'],
};
/** A table made before the key index and the sharded pets: its one index the former status index. */
async function formerTable(prefix: string): Promise<string> {
  const tableName = `${prefix}-${randomUUID()}`;
  await db.client.send(
    new CreateTableCommand(
      createTableInput(tableName, { ...tableDefinition, globalSecondaryIndexes: [FORMER_STATUS_INDEX] }),
    ),
  );
  return tableName;
}
const formerPet = (id: number, status = 'available') => ({
  pk: 'PET',
  sk: String(id).padStart(16, '0'),
  id,
  name: `old ${id}`,
  categoryId: 3,
  status,
  createdAt: '2026-01-02T03:04:05.000Z',
});
const formerKey = (apiKey: string) => ({
  pk: 'APIKEY',
  sk: hashApiKey(apiKey),
  plan: 'pro',
  limits: STANDARD_PLAN_LIMITS.pro,
  createdAt: '2026-01-02T03:04:05.000Z',
});
const put = (tableName: string, item: Record<string, unknown>) =>
  db.documentClient.send(new PutCommand({ TableName: tableName, Item: item }));

describe('npm start on a table of an earlier version', () => {
  it('adds the indexes the table lacks, one at a time, and leaves the former status index alone', async () => {
    const tableName = await formerTable('old-indexes');
    expect(await ensureTable(db.client, tableName)).toBe(false);
    const { Table } = await db.client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus]).sort()).toEqual([
      ['byStatus', 'ACTIVE'],
      ['petsById', 'ACTIVE'],
      ['petsByStatus', 'ACTIVE'],
      ['petsByStatusAgain', 'ACTIVE'],
      ['registeredKeys', 'ACTIVE'],
    ]);
    // The next start finds nothing to add.
    expect(await ensureTable(db.client, tableName)).toBe(false);
  });

  it('detects pets under PET and keys under APIKEY (one read of one item each), and says in one line which version moves them', async () => {
    const pets = await formerTable('old-pets');
    await put(pets, formerPet(1));
    await put(pets, { pk: 'SEQUENCE', sk: 'pet', value: 1 });
    expect(await formerLayoutsIn(db.client, pets)).toEqual(['pets']);
    const keys = await formerTable('old-keys');
    await put(keys, formerKey('old-pro-key'));
    expect(await formerLayoutsIn(db.client, keys)).toEqual(['keys']);
    await put(keys, formerPet(2));
    expect(await formerLayoutsIn(db.client, keys)).toEqual(['pets', 'keys']);

    const refusal = formerLayoutRefusal('the data directory /tmp/data', ['pets']);
    expect(refusal).toBe(
      'the data directory /tmp/data holds pets of the former layout (under PET), which this version no longer moves. Move them once with the last version that does: ' +
        'git checkout de7ab16 && npm start (with the same settings), then Ctrl-C and start this version again (docs/upgrading-pets.md).',
    );
    expect(refusal).not.toContain('\n');
    expect(formerLayoutRefusal('x', ['keys'])).toContain('x holds API keys of the former layout (under APIKEY),');
    expect(formerLayoutRefusal('x', ['pets', 'keys'])).toContain(
      'x holds pets and API keys of the former layouts (under PET and APIKEY),',
    );
  });

  it('finds no former layout in a table of this version, nor in one the last version with the moves moved (its retired counter and former status index stay)', async () => {
    const fresh = `fresh-${randomUUID()}`;
    await ensureTable(db.client, fresh);
    await new KeyRegistry(db.documentClient, fresh).register('new-key', 'free');
    await new DynamoDbPetRepository(db.client, fresh).create({ name: 'New', categoryId: 1, status: 'available' });
    expect(await formerLayoutsIn(db.client, fresh)).toEqual([]);

    // As de7ab16's npm start leaves a data directory it moved: keys and pets in their partitions,
    // the counter retired (2^53 - 1, never deleted), `byStatus` still there.
    const moved = await formerTable('moved');
    await ensureTable(db.client, moved);
    await put(moved, { pk: 'SEQUENCE', sk: 'pet', value: Number.MAX_SAFE_INTEGER });
    await new KeyRegistry(db.documentClient, moved).register('moved-key', 'pro');
    await new DynamoDbPetRepository(db.client, moved).create({ name: 'Moved', categoryId: 1, status: 'sold' });
    expect(await formerLayoutsIn(db.client, moved)).toEqual([]);
  });
});

describe("what is left of the operator's steps: pets-upgrade check and delete-former", () => {
  it('checks that every former pet has its copy, and deletes only former items whose copy checks out: it stops at one without (or with another pet in its place), and leaves it', async () => {
    const tableName = `leftovers-${randomUUID()}`;
    await ensureTable(db.client, tableName);
    const ids = [1, 2, 3];
    const repository = new DynamoDbPetRepository(db.client, tableName, { drawId: () => ids.shift() as number });
    // Pets 1 and 2 copied as the copy step made them; pet 3's place holds another pet.
    const one = await repository.create({ name: 'old 1', categoryId: 3, status: 'available' });
    const two = await repository.create({ name: 'old 2', categoryId: 3, status: 'sold' });
    const another = await repository.create({ name: 'another', categoryId: 1, status: 'pending' });
    for (const item of [formerPet(1), formerPet(2, 'sold'), formerPet(3)]) await put(tableName, item);
    expect([one.id, two.id, another.id]).toEqual([1, 2, 3]);
    const formerIds = async () =>
      (
        (
          await db.documentClient.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': 'PET' },
              ConsistentRead: true,
            }),
          )
        ).Items ?? []
      ).map((item) => item.id);

    expect(await hasFormerPets(db.client, tableName)).toBe(true);
    expect(await checkCopy(db.client, tableName)).toEqual({ former: 3, missing: [3] });
    await expect(deleteCopiedFormerPets(db.client, tableName)).rejects.toThrow(
      'pet 3 has no copy in its shard, or another pet is there: run the copy (with de7ab16: docs/upgrading-pets.md) and check first',
    );
    expect(await formerIds()).toEqual([3]);
    expect(await repository.get(3)).toEqual(another);
    expect(await checkCopy(db.client, tableName)).toEqual({ former: 1, missing: [3] });

    // Once pet 3's place holds its copy, it checks out and goes too.
    await db.documentClient.send(
      new DeleteCommand({ TableName: tableName, Key: { pk: 'PET#3', sk: formerPet(3).sk } }),
    );
    await put(tableName, {
      ...formerPet(3),
      pk: 'PET#3',
      status: undefined,
      statusShard: 'available#3',
      listShard: 'pets#3',
    });
    expect(await checkCopy(db.client, tableName)).toEqual({ former: 1, missing: [] });
    expect(await deleteCopiedFormerPets(db.client, tableName)).toBe(1);
    expect(await hasFormerPets(db.client, tableName)).toBe(false);
    expect(await formerIds()).toEqual([]);
    expect([await repository.get(1), await repository.get(2), await repository.get(3)]).toEqual([
      one,
      two,
      { id: 3, name: 'old 3', categoryId: 3, status: 'available' },
    ]);
  });
});
