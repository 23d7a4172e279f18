import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/client';
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
  return { documentClient: DynamoDBDocumentClient.from(client), reads, sent };
}

const repository = new DynamoDbPetRepository(createDocumentClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint }), db.tableName);
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
    const { documentClient, reads } = recordingClient();
    const recorded = new DynamoDbPetRepository(documentClient, db.tableName);
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
    const { documentClient, sent } = recordingClient();
    const start = Date.UTC(2026, 10, 22, 10, 0, 0);
    let nowMs = start;
    const keyed = new DynamoDbPetRepository(documentClient, db.tableName, () => nowMs);
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
