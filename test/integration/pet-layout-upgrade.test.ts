import { randomUUID } from 'node:crypto';
import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/create-table';
import { checkCopy, copyFormerPets, deleteCopiedFormerPets, hasFormerPets, retireCounter } from '../../local/pet-layout-upgrade';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { tableDefinitionFor, type PetLayout } from '../../shared/dynamodb/table-definition';
import { DynamoDbPetRepository, type PetRepository } from '../../shared/pets/repository';
import type { NewPet, Pet, PetStatus } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';
import { FormerPetStore } from '../support/former-pet-store';

const db = testDatabase();
const tableName = `upgrade-${randomUUID()}`;
const client = createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint });
const former = new FormerPetStore(client, tableName);
const release = (layout: PetLayout): PetRepository => new DynamoDbPetRepository(client, tableName, { layout });
const OWNER = '0123456789abcdef';
const statuses: PetStatus[] = ['available', 'pending', 'sold'];

/** Every pet a create answered (201), by id, and each key's first answer. */
const answered = new Map<number, Pet>();
const keyed = new Map<string, { request: NewPet; id: number }>();
const newPet = (i: number): NewPet => ({ name: `pet ${i}`, categoryId: (i % 5) + 1, status: statuses[i % 3] as PetStatus });

/** One create with or without a key, by one version; every 201 is at once found by getPet of each version still serving. */
async function create(i: number, by: 'former' | PetRepository, readers: ('former' | PetRepository)[]): Promise<void> {
  const request = newPet(i);
  const key = i % 4 === 0 ? `key-${i}` : undefined;
  const { pet } = key === undefined ? { pet: by === 'former' ? await former.create(request) : await by.create(request) } : by === 'former' ? await former.createOnce(request, { owner: OWNER, value: key }) : await by.createOnce(request, { owner: OWNER, value: key });
  expect(answered.has(pet.id)).toBe(false);
  answered.set(pet.id, pet);
  if (key !== undefined) keyed.set(key, { request, id: pet.id });
  for (const reader of readers) expect(reader === 'former' ? await former.get(pet.id) : await reader.get(pet.id)).toEqual(pet);
}

/** A walk of the whole listing (or one status) by one version: ascending, never a pet twice, every pet answered before it began. */
async function walk(reader: PetRepository, status?: PetStatus): Promise<Pet[]> {
  const before = [...answered.values()].filter((pet) => status === undefined || pet.status === status);
  const seen: Pet[] = [];
  let afterId = 0;
  for (;;) {
    const page = await reader.list({ afterId, limit: 7, status });
    seen.push(...page.pets);
    if (!page.hasMore) break;
    afterId = page.pets.at(-1)?.id as number;
  }
  const ids = seen.map((pet) => pet.id);
  expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  for (const pet of before) expect(seen).toContainEqual(pet);
  return seen;
}

/** Every key's retry answers the first answer's id, by this version. */
async function replayEveryKey(by: 'former' | PetRepository): Promise<void> {
  for (const [value, { request, id }] of keyed) {
    const replay = by === 'former' ? await former.createOnce(request, { owner: OWNER, value }) : await by.createOnce(request, { owner: OWNER, value });
    expect(replay).toEqual({ pet: answered.get(id), replayed: true });
  }
}

beforeAll(async () => {
  // A stage's table during the steps: `copying`'s has every index (the `upgrading` deploy adds the
  // status index, the `copying` one the listing index; versions of steps before never read one they lack).
  await client.send(new CreateTableCommand(createTableInput(tableName, tableDefinitionFor('copying'))));
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
});

afterAll(() => client.destroy());

describe('upgrading a stage that holds pets, with old and new versions side by side (docs/upgrading-pets.md)', () => {
  it('finds every pet once, with its id, at every step; every replay answers the same id; the copy survives being killed', async () => {
    // The stage before: the former version alone.
    for (let i = 0; i < 30; i += 1) await create(i, 'former', ['former']);
    expect(await hasFormerPets(client, tableName)).toBe(true);

    // Step 1: the release that reads both layouts and writes the former one, beside the former
    // version still serving (each alias's canary): each sees every pet the other made.
    const upgrading = release('upgrading');
    await Promise.all([
      (async () => { for (let i = 30; i < 50; i += 1) await create(i, 'former', ['former', upgrading]); })(),
      (async () => { for (let i = 50; i < 70; i += 1) await create(i, upgrading, ['former', upgrading]); })(),
      walk(upgrading),
      walk(upgrading, 'sold'),
    ]);
    await replayEveryKey('former');
    await replayEveryKey(upgrading);
    expect((await former.list(0, 1_000)).pets).toHaveLength(70);
    // Its ids come from the upper half of the 12 random bits, the next step's from the lower half:
    // running side by side they never draw the same id (each write's condition sees one layout).
    const upgradingIds = [...answered.keys()].filter((id) => id > 1_000_000);
    expect(upgradingIds.length).toBeGreaterThanOrEqual(20);
    for (const id of upgradingIds) expect(id % 4096).toBeGreaterThanOrEqual(2048);

    // Step 2: writes switch to the shards (every alias runs the release), and at once the counter is
    // retired: a former version brought back by a rollback can no longer create.
    const copying = release('copying');
    const lastCounterId = await retireCounter(client, tableName);
    // 50 pets, and an id for each of the former version's replays (it took one beside reading the record).
    expect(lastCounterId).toBe(30 + 20 + keyed.size);
    await expect(former.create(newPet(0))).rejects.toThrow('not a safe integer');
    await expect(retireCounter(client, tableName)).resolves.toBe(0);

    // Step 3: the copy, killed part way, resumed; creates, walks and replays go on meanwhile.
    let killed = false;
    const before = new Set(answered.keys());
    await Promise.all([
      (async () => { for (let i = 70; i < 90; i += 1) await create(i, i % 2 === 0 ? copying : upgrading, [copying, upgrading]); })(),
      copyFormerPets(client, tableName, ({ copied }) => {
        if (copied === 25) {
          killed = true;
          throw new Error('killed');
        }
      }).catch((error: Error) => expect(error.message).toBe('killed')),
      walk(copying),
      walk(copying, 'pending'),
    ]);
    expect(killed).toBe(true);
    // Pet i made by `upgrading` when i is odd (upper half of the random bits), by `copying` when even (lower half).
    for (const [id, pet] of answered) if (!before.has(id)) expect([pet.name, id % 4096 >= 2048]).toEqual([pet.name, Number(pet.name.slice(4)) % 2 === 1]);
    expect((await checkCopy(client, tableName)).missing.length).toBeGreaterThan(0);
    const resumed = await copyFormerPets(client, tableName);
    expect(resumed.present).toBeGreaterThanOrEqual(25);
    await replayEveryKey(copying);

    // Step 4: the check: every pet of the former layout has its copy (the `upgrading` release's
    // creates above went to the former layout after the copy passed them: copied again).
    await copyFormerPets(client, tableName);
    expect(await checkCopy(client, tableName)).toEqual({ former: 30 + 20 + 20 + 10, missing: [] });

    // Step 5: the release that reads the shards alone (`copied`), beside `copying` (its canary);
    // then `current`, the same code, whose deploy removes the former status index.
    const copied = release('copied');
    await Promise.all([
      (async () => { for (let i = 90; i < 100; i += 1) await create(i, i % 2 === 0 ? copied : copying, [copied, copying]); })(),
      walk(copied),
      walk(copied, 'available'),
      walk(copying, 'sold'),
    ]);
    await replayEveryKey(copied);
    const current = release('current');
    const all = await walk(current);
    expect(all).toEqual([...answered.values()].sort((a, b) => a.id - b.id));
    for (const status of statuses) expect(await walk(current, status)).toEqual(all.filter((pet) => pet.status === status));
    for (const pet of answered.values()) expect(await current.get(pet.id)).toEqual(pet);
    await replayEveryKey(current);

    // Then the former items go; nothing changes for the current release.
    expect(await deleteCopiedFormerPets(client, tableName)).toBe(30 + 20 + 20 + 10);
    expect(await hasFormerPets(client, tableName)).toBe(false);
    expect(await walk(current)).toEqual(all);
  });

  it('copies nothing over another pet: a shard holding another pet under the id is a conflict that check and delete-former report', async () => {
    const other = `conflict-${randomUUID()}`;
    await client.send(new CreateTableCommand(createTableInput(other, tableDefinitionFor('copying'))));
    await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: other });
    const formerStore = new FormerPetStore(client, other);
    const old = await formerStore.create({ name: 'Old', categoryId: 1, status: 'available' });
    // Another pet under the same id in its shard (which the halves of the random bits prevent).
    await new DynamoDbPetRepository(client, other, { drawId: () => old.id }).create({ name: 'New', categoryId: 2, status: 'sold' });
    expect(await copyFormerPets(client, other)).toEqual({ copied: 0, present: 0, conflicts: [old.id] });
    expect(await checkCopy(client, other)).toEqual({ former: 1, missing: [old.id] });
    await expect(deleteCopiedFormerPets(client, other)).rejects.toThrow(`pet ${old.id} has no copy in its shard, or another pet is there`);
    expect(await formerStore.get(old.id)).toEqual(old);
  });
});
