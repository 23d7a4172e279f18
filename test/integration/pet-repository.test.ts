import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { queueCallsForSockets } from '../../local/dynamodb-socket-queue';
import { createDynamoDbClient, LOCAL_CALLS_IN_FLIGHT } from '../../shared/dynamodb/client';
import { DynamoDbPetRepository, type PetPage } from '../../shared/pets/repository';
import { marshall } from '@aws-sdk/util-dynamodb';
import { drawnAt } from '../../shared/pets/pet-ids';
import { toPet } from '../../shared/pets/pet-items';
import type { Pet, PetStatus } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';

const db = testDatabase();

/** A client that records the name of every command it sends, and how many items each Query read (ScannedCount), as DynamoDB reports it. */
function recordingClient() {
  const reads: number[] = [];
  const sent: string[] = [];
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
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

/**
 * The client as the local server runs it, its calls queued for the pool's sockets: 200 creates at
 * once from one process, as through npm start (in AWS an instance sends a handful at a time).
 */
const localClient = createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint });
queueCallsForSockets(localClient, { inFlight: LOCAL_CALLS_IN_FLIGHT });
const repository = new DynamoDbPetRepository(localClient, db.tableName);
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

/** The item of a pet in the sharded layout, as the document client reads it. */
const keyOf = (id: number) => ({ pk: `PET#${id % 8}`, sk: String(id).padStart(16, '0') });

beforeAll(async () => {
  for (let i = 0; i < 60; i += 1) {
    created.push(
      await repository.create({ name: `pet ${i}`, categoryId: (i % 4) + 1, status: statuses[i % 3] as PetStatus }),
    );
  }
});

describe('DynamoDbPetRepository on DynamoDB Local', () => {
  it('stores what it returns, and reads it back by id', async () => {
    const pet = created[7] as Pet;
    expect(await repository.get(pet.id)).toEqual(pet);
    expect(await repository.get(10_000)).toBeUndefined();
    expect(await repository.get(pet.id + 8)).toBeUndefined();
  });

  it('writes each pet in its shard, with its status as the status index key and the nonce of its create', async () => {
    const pet = created[8] as Pet;
    const { Item } = await db.documentClient.send(new GetCommand({ TableName: db.tableName, Key: keyOf(pet.id) }));
    expect(Item).toEqual({
      ...keyOf(pet.id),
      id: pet.id,
      name: pet.name,
      categoryId: pet.categoryId,
      statusShard: `${pet.status}#${pet.id % 8}`,
      listShard: `pets#${pet.id % 8}`,
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    // Its shards spread: 60 pets in more than half of the 8.
    expect(new Set(created.map((p) => p.id % 8)).size).toBeGreaterThan(4);
  });

  it.each(['id', 'name', 'categoryId', 'statusShard'] as const)(
    'refuses to answer a stored pet without its %s, or with a value of another type there: a fault of ours, never half a pet',
    async (field) => {
      const id = 90_000 + ['id', 'name', 'categoryId', 'statusShard'].indexOf(field);
      const whole = {
        ...keyOf(id),
        id,
        name: 'Odd',
        categoryId: 1,
        statusShard: `available#${id % 8}`,
        createdAt: '2026-11-26T00:00:00.000Z',
      };
      await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: whole }));
      await expect(repository.get(id)).resolves.toEqual({ id, name: 'Odd', categoryId: 1, status: 'available' });
      const { [field]: _, ...without } = whole;
      await db.documentClient.send(new PutCommand({ TableName: db.tableName, Item: without }));
      await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
      // The status index's keys (statusShard, id) cannot be stored with another type; the others can.
      if (field === 'name' || field === 'categoryId') {
        await db.documentClient.send(
          new PutCommand({ TableName: db.tableName, Item: { ...whole, [field]: field === 'name' ? 7 : '7' } }),
        );
        await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
      }
      if (field === 'statusShard') {
        await db.documentClient.send(
          new PutCommand({ TableName: db.tableName, Item: { ...whole, statusShard: `lost#${id % 8}` } }),
        );
        await expect(repository.get(id)).rejects.toThrow('a pet item without its id, name, categoryId or status');
      }
      await db.documentClient.send(new DeleteCommand({ TableName: db.tableName, Key: keyOf(id) }));
    },
  );

  it('lists all pets in ascending id order, page by page', async () => {
    expect(await walk(undefined, 7)).toEqual(created);
  });

  it('lists one status through the index, in ascending id order', async () => {
    for (const status of statuses) {
      expect(await walk(status, 4)).toEqual(created.filter((pet) => pet.status === status));
    }
  });

  it('says there is no more on the last page, even when it is exactly full', async () => {
    const page = await repository.list({ afterId: (created[49] as Pet).id, limit: 10, status: undefined });
    expect(page.pets).toEqual(created.slice(50));
    expect(page.hasMore).toBe(false);
  });

  it('reads a page with one query per shard, each bounded by twice its share and two more, however large the table', async () => {
    const { client, reads, sent } = recordingClient();
    const recorded = new DynamoDbPetRepository(client, db.tableName);
    for (const [request, share] of [
      [{ afterId: 0, limit: 5, status: undefined }, 4],
      [{ afterId: (created[10] as Pet).id, limit: 3, status: 'sold' }, 3],
      [{ afterId: 0, limit: 1, status: 'pending' }, 3],
    ] as const) {
      reads.length = 0;
      sent.length = 0;
      await recorded.list(request);
      // Each shard once, and again only a shard that was cut short of the page.
      expect(sent.length).toBeGreaterThanOrEqual(8);
      for (const read of reads.slice(0, 8)) expect(read).toBeLessThanOrEqual(share);
    }
  });

  it('never overwrites: 200 concurrent creates get 200 distinct ids and all are stored', async () => {
    // Drawn within 50 ms of a clock that never moves past them (4 creates a millisecond, as a busy
    // instance draws): on a busy machine DynamoDB Local may take longer than a real-time id may be
    // resent (YOUNG_ID_MS), which is fault-suite's subject, not this test's. In one millisecond
    // alone, 200 draws of 4,096 values made a create meet three taken ids (a 503) about once in 90
    // runs; a taken id drawn again is time-ordered-ids.test.ts's subject.
    let tick = 0;
    const frozen = new DynamoDbPetRepository(localClient, db.tableName, {
      now: () => Date.UTC(2026, 10, 26, 15) + (tick++ % 50),
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => frozen.create({ name: `parallel ${i}`, categoryId: 9, status: 'pending' })),
    );
    const ids = new Set(results.map((pet) => pet.id));
    expect(ids.size).toBe(200);
    const stored = (await db.storedPets()).map((item) => toPet(marshall(item)));
    for (const pet of results) expect(stored).toContainEqual(pet);
  });
});

describe('time-ordered ids (after the listings above, which list only the pets made before them)', () => {
  it('hands out ids increasing with creation time: a pet created a millisecond after another has the larger id', async () => {
    let nowMs = Date.UTC(2026, 10, 26, 14);
    const timed = new DynamoDbPetRepository(
      createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint }),
      db.tableName,
      { now: () => nowMs },
    );
    const ids: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      ids.push((await timed.create({ name: `timed ${i}`, categoryId: 1, status: 'available' })).id);
      nowMs += 1;
    }
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    for (const [i, id] of ids.entries()) expect(drawnAt(id)).toBe(Date.UTC(2026, 10, 26, 14) + i);
    expect(ids.every(Number.isSafeInteger)).toBe(true);
    expect(created.map((pet) => pet.id)).toEqual(created.map((pet) => pet.id).sort((x, y) => x - y));
  });
});

describe('idempotent creates: what a replay costs (issue 27)', () => {
  it('the same create again within 24 hours writes no pet and no record, and reads only the record; after them, it is a new create', async () => {
    const { client, sent } = recordingClient();
    const start = Date.UTC(2026, 10, 22, 10, 0, 0);
    let nowMs = start;
    const keyed = new DynamoDbPetRepository(client, db.tableName, { now: () => nowMs });
    const newPet = { name: 'Once', categoryId: 1, status: 'available' as const };
    const key = { owner: '0123456789abcdef', value: 'replay-cost' };
    const first = await keyed.createOnce(newPet, key);
    expect(first.replayed).toBe(false);

    sent.length = 0;
    nowMs = start + 24 * 3_600_000 - 1_000;
    expect(await keyed.createOnce(newPet, key)).toEqual({ pet: first.pet, replayed: true });
    expect(sent).toEqual(['GetItemCommand']);

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
    const client = new DynamoDBClient({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { pk?: { S?: string } } }).Key?.pk?.S;
        if (context.commandName === 'GetItemCommand' && key?.startsWith('IDEMPOTENCY#'))
          return { output: { $metadata: {} }, response: {} };
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
