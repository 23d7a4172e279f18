import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { drawPetId, LISTING_SETTLE_MS, YOUNG_ID_MS } from '../../shared/pets/pet-ids';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import type { NewPet } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';
import { instrumentedClient as instrumentedClientOf } from '../support/instrumented-client';

const db = testDatabase();
const START = Date.UTC(2026, 10, 26, 14);

/** A client of this file's table that records its commands and lets a test act around each attempt. */
const instrumentedClient = (aroundAttempt?: Parameters<typeof instrumentedClientOf>[1]) =>
  instrumentedClientOf(db.endpoint, aroundAttempt);

const newPet = (name: string): NewPet => ({ name, categoryId: 3, status: 'available' });

describe('a collision of ids (two creates in one millisecond drew the same 12 bits)', () => {
  it('is drawn again in a new write: the create gets another id, the pet already there is untouched', async () => {
    const { client } = instrumentedClient();
    const first = await new DynamoDbPetRepository(client, db.tableName).create(newPet('First'));
    const draws = [first.id];
    const { client: recorded, sent } = instrumentedClient();
    const colliding = new DynamoDbPetRepository(recorded, db.tableName, {
      drawId: (nowMs) => draws.shift() ?? drawPetId(nowMs),
    });
    const second = await colliding.create(newPet('Second'));
    expect(second.id).not.toBe(first.id);
    expect(sent).toEqual(['PutItem', 'PutItem']);
    expect(await colliding.get(first.id)).toEqual(first);
    expect(await colliding.get(second.id)).toEqual(second);
  });

  it('with an Idempotency-Key too: the transaction is sent again with a new id, and the record holds the pet that was written', async () => {
    const { client } = instrumentedClient();
    const first = await new DynamoDbPetRepository(client, db.tableName).create(newPet('Taken'));
    const draws = [first.id];
    const { client: recorded, sent } = instrumentedClient();
    const colliding = new DynamoDbPetRepository(recorded, db.tableName, {
      drawId: (nowMs) => draws.shift() ?? drawPetId(nowMs),
    });
    const key = { owner: '0123456789abcdef', value: 'collides-once' };
    const created = await colliding.createOnce(newPet('Keyed'), key);
    expect(created.replayed).toBe(false);
    expect(created.pet.id).not.toBe(first.id);
    expect(sent).toEqual(['GetItem', 'TransactWriteItems', 'TransactWriteItems']);
    expect(await colliding.get(first.id)).toEqual(first);
    expect(await colliding.get(created.pet.id)).toEqual(created.pet);
    // The retry with the key replays the pet that was written.
    expect(await colliding.createOnce(newPet('Keyed'), key)).toEqual({ pet: created.pet, replayed: true });
  });

  it('three draws in a row taken (never seen: 1 in 4,096 each) is a 503 the client may retry, never a 500, and writes nothing', async () => {
    const { client } = instrumentedClient();
    const taken = await new DynamoDbPetRepository(client, db.tableName).create(newPet('Always taken'));
    const unlucky = new DynamoDbPetRepository(client, db.tableName, { drawId: () => taken.id });
    await expect(unlucky.create(newPet('Unlucky'))).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
      cause: new Error('no id written in 3 draws'),
    });
    await expect(
      unlucky.createOnce(newPet('Unlucky'), { owner: '0123456789abcdef', value: 'unlucky' }),
    ).rejects.toMatchObject({ status: 503 });
    expect((await db.storedPets()).filter((item) => item.name === 'Unlucky')).toEqual([]);
  });
});

describe('a retry of the same write', () => {
  /**
   * The first attempt of a pet's write fails as `fault` says, and the clock moves on by `lateByMs`
   * meanwhile; 'lost' writes the pet and then loses the reply, 'timeout' fails before writing.
   */
  function failingOnce(fault: 'throttle' | 'lost' | 'timeout', lateByMs: number) {
    let nowMs = START;
    let failed = false;
    const { client, sent } = instrumentedClient(async (command, _, send) => {
      if ((command === 'PutItem' || command === 'TransactWriteItems') && !failed) {
        failed = true;
        nowMs += lateByMs;
        if (fault === 'throttle')
          throw new ProvisionedThroughputExceededException({
            message: 'throttled',
            $metadata: { httpStatusCode: 400 },
          });
        if (fault === 'lost') await send();
        throw Object.assign(new Error('the connection timed out'), { name: 'TimeoutError' });
      }
      return send();
    });
    return { repository: new DynamoDbPetRepository(client, db.tableName, { now: () => nowMs }), sent };
  }
  const drawnMs = (id: number) => Math.floor(id / 4096);

  it(`is sent while its id is younger than ${YOUNG_ID_MS} ms, with the same id`, async () => {
    const { repository, sent } = failingOnce('throttle', YOUNG_ID_MS - 1);
    const pet = await repository.create(newPet('Retried young'));
    expect(sent).toEqual(['PutItem', 'PutItem']);
    expect(drawnMs(pet.id)).toBe(START - Date.UTC(2026, 0, 1));
    expect(await repository.get(pet.id)).toEqual(pet);
  });

  it('is not sent once the id is older; after a throttle (nothing written) the create draws a new id, once the clock has moved on', async () => {
    const { repository, sent } = failingOnce('throttle', YOUNG_ID_MS);
    const pet = await repository.create(newPet('Redrawn'));
    expect(sent).toEqual(['PutItem', 'PutItem']);
    expect(drawnMs(pet.id)).toBe(START + YOUNG_ID_MS - Date.UTC(2026, 0, 1));
    expect((await db.petsStored()).filter((stored) => stored.name === 'Redrawn')).toEqual([pet]);
    const keyed = failingOnce('throttle', YOUNG_ID_MS);
    const created = await keyed.repository.createOnce(newPet('Redrawn keyed'), {
      owner: '0123456789abcdef',
      value: 'redrawn',
    });
    expect(keyed.sent).toEqual(['GetItem', 'TransactWriteItems', 'TransactWriteItems']);
    expect(drawnMs(created.pet.id)).toBe(START + YOUNG_ID_MS - Date.UTC(2026, 0, 1));
  });

  it('after an attempt whose outcome is unknown, reads the pet back: its own (the nonce) is a 201, a write that did not happen a 503, and nothing is written twice', async () => {
    const lost = failingOnce('lost', YOUNG_ID_MS);
    const pet = await lost.repository.create(newPet('Lost and found'));
    expect(lost.sent).toEqual(['PutItem', 'GetItem']);
    expect((await db.petsStored()).filter((stored) => stored.name === 'Lost and found')).toEqual([pet]);

    const timedOut = failingOnce('timeout', YOUNG_ID_MS);
    await expect(timedOut.repository.create(newPet('Timed out'))).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
    expect(timedOut.sent).toEqual(['PutItem', 'GetItem']);
    const keyed = failingOnce('timeout', YOUNG_ID_MS);
    await expect(
      keyed.repository.createOnce(newPet('Timed out'), { owner: '0123456789abcdef', value: 'timed-out' }),
    ).rejects.toMatchObject({ status: 503 });
    expect(keyed.sent).toEqual(['GetItem', 'TransactWriteItems', 'GetItem']);
    expect((await db.petsStored()).filter((item) => item.name === 'Timed out')).toEqual([]);
    // Nothing was recorded either: the key creates on its retry.
    const { client } = instrumentedClient();
    expect(
      (
        await new DynamoDbPetRepository(client, db.tableName).createOnce(newPet('Timed out'), {
          owner: '0123456789abcdef',
          value: 'timed-out',
        })
      ).replayed,
    ).toBe(false);
  });
});

describe('listings show a pet once its id is a second old', () => {
  it('no page returns, and no cursor points past, an id drawn less than a second ago; getPet finds it at once', async () => {
    let nowMs = Date.UTC(2027, 0, 1);
    const { client } = instrumentedClient();
    const repository = new DynamoDbPetRepository(client, db.tableName, {
      now: () => nowMs,
      listingSettleMs: LISTING_SETTLE_MS,
    });
    const older = await repository.create(newPet('Settled'));
    nowMs += 500;
    const newer = await repository.create(newPet('Settling'));
    expect(await repository.get(newer.id)).toEqual(newer);
    const ids = async () => {
      const page = await repository.list({ afterId: older.id - 1, limit: 10, status: undefined });
      return { ids: page.pets.map((pet) => pet.id), hasMore: page.hasMore };
    };
    nowMs = drawnAtOf(older.id) + LISTING_SETTLE_MS - 1;
    expect(await ids()).toEqual({ ids: [], hasMore: false });
    nowMs += 1;
    expect(await ids()).toEqual({ ids: [older.id], hasMore: false });
    nowMs = drawnAtOf(newer.id) + LISTING_SETTLE_MS;
    expect(await ids()).toEqual({ ids: [older.id, newer.id], hasMore: false });
    // The status filter follows the same rule.
    nowMs = drawnAtOf(newer.id) + LISTING_SETTLE_MS - 1;
    const available = await repository.list({ afterId: older.id - 1, limit: 10, status: 'available' });
    expect(available.pets.map((pet) => pet.id)).toEqual([older.id]);
  });

  it('pages are eventually consistent reads (half the units), getPet strongly consistent', async () => {
    const inputs: [string, unknown][] = [];
    const { client } = instrumentedClient((command, input, send) => {
      inputs.push([command, input.ConsistentRead]);
      return send();
    });
    const repository = new DynamoDbPetRepository(client, db.tableName);
    const pet = await repository.create(newPet('Consistency'));
    inputs.length = 0;
    await repository.get(pet.id);
    await repository.list({ afterId: 0, limit: 5, status: undefined });
    await repository.list({ afterId: 0, limit: 5, status: 'sold' });
    expect(inputs[0]).toEqual(['GetItem', true]);
    expect(inputs.slice(1).length).toBeGreaterThanOrEqual(16);
    for (const [command, consistent] of inputs.slice(1)) expect([command, consistent]).toEqual(['Query', undefined]);
  });
});

describe('the id is drawn when the write is sent', () => {
  it('after the rate limiter admitted the request, however long that took: a slow admission never lands a pet below ids already listed', async () => {
    let nowMs = START;
    const { client } = instrumentedClient();
    const repository = new DynamoDbPetRepository(client, db.tableName, { now: () => nowMs });
    const admitted = new Promise<void>((resolve) =>
      setTimeout(() => {
        nowMs += 5_000;
        resolve();
      }, 10),
    );
    const pet = await repository.create(newPet('Admitted late'), { beforeWrite: admitted });
    expect(drawnAtOf(pet.id)).toBe(START + 5_000);
    nowMs = START;
    const keyed = await repository.createOnce(
      newPet('Admitted late'),
      { owner: '0123456789abcdef', value: 'admitted-late' },
      {
        beforeWrite: new Promise<void>((resolve) =>
          setTimeout(() => {
            nowMs += 5_000;
            resolve();
          }, 10),
        ),
      },
    );
    expect(drawnAtOf(keyed.pet.id)).toBe(START + 5_000);
  });
});

const drawnAtOf = (id: number) => Date.UTC(2026, 0, 1) + Math.floor(id / 4096);
