import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { DynamoDbPetRepository, type PetPage } from '../../shared/pets/repository';
import type { Pet, PetStatus } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';

const db = testDatabase();

/** A client that records the name of every command it sends, and how many items each Query read (ScannedCount), as DynamoDB reports it. */
function recordingClient() {
  const reads: number[] = [];
  const sent: string[] = [];
  const client = new DynamoDBClient({ endpoint: db.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      const result = await next(args);
      if (context.commandName === 'QueryCommand') reads.push((result.output as { ScannedCount: number }).ScannedCount);
      return result;
    },
    { step: 'initialize' },
  );
  return { client, reads, sent };
}

const repository = new DynamoDbPetRepository(createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint }), db.tableName);
const statuses: PetStatus[] = ['available', 'pending', 'sold'];
const created: Pet[] = [];

async function walk(status: PetStatus | undefined, limit: number): Promise<Pet[]> {
  const seen: Pet[] = [];
  let afterId = 0;
  let page: PetPage;
  do {
    page = await repository.list({ afterId, limit, status });
    expect(page.pets.length).toBeLessThanOrEqual(limit);
    seen.push(...page.pets);
    afterId = page.pets.at(-1)?.id ?? afterId;
  } while (page.hasMore);
  return seen;
}

beforeAll(async () => {
  for (let i = 0; i < 60; i += 1) {
    created.push(await repository.create({ name: `pet ${i}`, categoryId: (i % 4) + 1, status: statuses[i % 3] as PetStatus }));
  }
});

describe('DynamoDbPetRepository on DynamoDB Local', () => {
  it('hands out increasing ids in creation order, starting at 1', () => {
    expect(created.map((pet) => pet.id)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('stores what it returns, and reads it back by id', async () => {
    const pet = created[7] as Pet;
    expect(await repository.get(pet.id)).toEqual(pet);
    expect(await repository.get(10_000)).toBeUndefined();
  });

  it('writes the items the document client wrote, and reads them as it did', async () => {
    const pet = created[8] as Pet;
    const { Item } = await db.documentClient.send(new GetCommand({ TableName: db.tableName, Key: { pk: 'PET', sk: String(pet.id).padStart(16, '0') } }));
    expect(Item).toEqual({ pk: 'PET', sk: String(pet.id).padStart(16, '0'), ...pet, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  });

  it.each(['id', 'name', 'categoryId', 'status'] as const)('refuses to answer a stored pet without its %s, or with a value of another type there: a fault of ours, never half a pet', async (field) => {
    const id = 90_000 + ['id', 'name', 'categoryId', 'status'].indexOf(field);
    const whole = { pk: 'PET', sk: String(id).padStart(16, '0'), id, name: 'Odd', categoryId: 1, status: 'available', createdAt: '2026-11-26T00:00:00.000Z' };
    await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: whole }));
    await expect(repository.get(id)).resolves.toEqual({ id, name: 'Odd', categoryId: 1, status: 'available' });
    const { [field]: _, ...without } = whole;
    await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: without }));
    await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
    // The status index's keys (status, id) cannot be stored with another type; the others can.
    if (field === 'name' || field === 'categoryId') {
      await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: { ...whole, [field]: field === 'name' ? 7 : '7' } }));
      await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
    }
    if (field === 'status') {
      await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: { ...whole, status: 'lost' } }));
      await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
    }
    await db.documentClient.send(new DeleteCommand({ TableName: db.tableName, Key: { pk: 'PET', sk: whole.sk } }));
  });

  it('lists all pets in ascending id order, page by page', async () => {
    expect(await walk(undefined, 7)).toEqual(created);
  });

  it('lists one status through the index, in ascending id order', async () => {
    for (const status of statuses) {
      expect(await walk(status, 4)).toEqual(created.filter((pet) => pet.status === status));
    }
  });

  it('says there is no more on the last page, even when it is exactly full', async () => {
    const page = await repository.list({ afterId: 50, limit: 10, status: undefined });
    expect(page.pets.map((pet) => pet.id)).toEqual([51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
    expect(page.hasMore).toBe(false);
  });

  it('reads at most limit + 1 items for a page, however large the table', async () => {
    const { client, reads } = recordingClient();
    const recorded = new DynamoDbPetRepository(client, db.tableName);
    await recorded.list({ afterId: 0, limit: 5, status: undefined });
    await recorded.list({ afterId: 10, limit: 3, status: 'sold' });
    await recorded.list({ afterId: 0, limit: 1, status: 'pending' });
    expect(reads).toEqual([6, 4, 2]);
  });

  it('never overwrites: 200 concurrent creates get 200 distinct ids and all are stored', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => repository.create({ name: `parallel ${i}`, categoryId: 9, status: 'pending' })),
    );
    const ids = new Set(results.map((pet) => pet.id));
    expect(ids.size).toBe(200);
    const stored = await db.storedPets();
    for (const pet of results) expect(stored).toContainEqual(expect.objectContaining(pet));
  });
});

describe('idempotent creates: what a replay costs (issue 27)', () => {
  it('the same create again within 24 hours writes no pet and no record (it reads the record while taking an id); after them, it is a new create', async () => {
    const { client, sent } = recordingClient();
    const start = Date.UTC(2026, 10, 22, 10, 0, 0);
    let nowMs = start;
    const keyed = new DynamoDbPetRepository(client, db.tableName, () => nowMs);
    const newPet = { name: 'Once', categoryId: 1, status: 'available' as const };
    const key = { owner: '0123456789abcdef', value: 'replay-cost' };
    const first = await keyed.createOnce(newPet, key);
    expect(first.replayed).toBe(false);

    sent.length = 0;
    nowMs = start + 24 * 3_600_000 - 1_000;
    expect(await keyed.createOnce(newPet, key)).toEqual({ pet: first.pet, replayed: true });
    expect([...sent].sort()).toEqual(['GetItemCommand', 'UpdateItemCommand']);

    sent.length = 0;
    nowMs = start + 24 * 3_600_000;
    const again = await keyed.createOnce(newPet, key);
    expect(again.replayed).toBe(false);
    expect(again.pet.id).not.toBe(first.pet.id);
    expect(sent).toContain('TransactWriteItemsCommand');
  });
});

describe('idempotent creates: a record that appears between the read and the write', () => {
  /** A client whose reads of idempotency records find nothing, as when another request writes the record just after this one read it. */
  function clientBlindToRecords() {
    const client = new DynamoDBClient({ endpoint: db.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { pk?: { S?: string } } }).Key?.pk?.S;
        if (context.commandName === 'GetItemCommand' && key?.startsWith('IDEMPOTENCY#')) return { output: { $metadata: {} }, response: {} };
        return next(args);
      },
      { step: 'initialize' },
    );
    return client;
  }

  it('is read from the cancelled transaction: the same create gets the recorded pet (a replay), another body a 422, and nothing more is written', async () => {
    const key = { owner: '0123456789abcdef', value: 'appears-meanwhile' };
    const newPet = { name: 'Winner', categoryId: 4, status: 'sold' as const };
    const first = await repository.createOnce(newPet, key);
    const blind = new DynamoDbPetRepository(clientBlindToRecords(), db.tableName);
    const before = (await db.storedPets()).length;
    await expect(blind.createOnce(newPet, key)).resolves.toEqual({ pet: first.pet, replayed: true });
    await expect(blind.createOnce({ ...newPet, name: 'Loser' }, key)).rejects.toMatchObject({ status: 422 });
    expect((await db.storedPets()).length).toBe(before);
  });
});
