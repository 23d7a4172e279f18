import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CallDeadline } from '../../shared/dynamodb/call-deadline';
import { ApiError, IdempotencyInProgressError, ServiceUnavailableError } from '../../shared/errors';
import { drawnAt, RANDOM_BITS, YOUNG_ID_MS } from '../../shared/pets/pet-ids';
import { petSortKey, shardOf, shardPartition } from '../../shared/pets/pet-items';
import { idempotencyRecordKey, THROTTLED_PAUSE_MS, type CreatedOnce } from '../../shared/pets/pet-writes';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import type { NewPet } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';
import { startFaultProxy, type CancellationReason, type FaultProxy } from '../support/fault-proxy';
import { instrumentedClient } from '../support/instrumented-client';

/**
 * The pet writes' less travelled paths on DynamoDB Local: what each read asks for, the deadline on
 * every call, failures of mixed kinds, and each reason DynamoDB may give for cancelling a create's
 * transaction (answered by the fault proxy, since DynamoDB Local gives them only to racing writers).
 * (The usual paths: test/integration/pet-repository.test.ts and time-ordered-ids.test.ts.)
 */
const db = testDatabase();
const OWNER = '0123456789abcdef';
const newPet = (name: string): NewPet => ({ name, categoryId: 2, status: 'pending' });
const storedNamed = async (name: string) => (await db.petsStored()).filter((pet) => pet.name === name);
/** A request's deadline whose n-th call (from 0) is already over when `over(n)` says so. */
const deadlineWhere = (over: (call: number) => boolean): CallDeadline => {
  let calls = 0;
  return {
    signalForCall: () =>
      over(calls++) ? AbortSignal.abort(new Error("the request's deadline")) : new AbortController().signal,
  } as unknown as CallDeadline;
};

describe('the record of an idempotency key', () => {
  it("is a partition of its own, IDEMPOTENCY#<key id>#<client's key>, whatever the client's key holds", () => {
    expect(idempotencyRecordKey(OWNER, 'a#b')).toStrictEqual({ pk: `IDEMPOTENCY#${OWNER}#a#b`, sk: 'record' });
  });

  it('belongs to a key id only: any other owner is refused, not trusted', () => {
    expect(() => idempotencyRecordKey('not-a-key-id', 'a')).toThrow(
      new Error('an idempotency record belongs to a key id (16 hex digits)'),
    );
    expect(() => idempotencyRecordKey(`${OWNER}#x`, 'a')).toThrow(Error);
  });
});

describe('every create writes one layout', () => {
  const NOW = Date.UTC(2026, 10, 26, 12);

  it("draws from all 12 random bits (no half kept for another layout's code) and writes each pet to its shard, none to the former partition (PET)", async () => {
    const repository = new DynamoDbPetRepository(db.client, db.tableName, { now: () => NOW });
    const pets = await Promise.all(Array.from({ length: 40 }, () => repository.create(newPet('One layout'))));
    for (const pet of pets) expect(drawnAt(pet.id)).toBe(NOW);
    const bits = pets.map((pet) => pet.id % 2 ** RANDOM_BITS);
    // 40 draws all in one half: a chance of 2 in 2^40.
    expect(bits.some((low) => low < 2 ** (RANDOM_BITS - 1))).toBe(true);
    expect(bits.some((low) => low >= 2 ** (RANDOM_BITS - 1))).toBe(true);
    const stored = (await db.storedPets()).filter((item) => item.name === 'One layout');
    expect(stored.map((item) => item.pk)).toEqual(stored.map((item) => shardPartition(shardOf(Number(item.id)))));
    expect(stored).toHaveLength(40);
    const { Items = [] } = await db.documentClient.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'PET' },
        ConsistentRead: true,
      }),
    );
    expect(Items).toEqual([]);
  });
});

/** A client whose first `command` is written but its reply lost, while the clock moves past the id's youth: the create must read its pet back. */
function losingFirstReply(command: 'PutItem' | 'TransactWriteItems') {
  let nowMs = Date.now();
  let lost = false;
  const recorded = instrumentedClient(db.endpoint, async (sentCommand, _, send) => {
    if (sentCommand === command && !lost) {
      lost = true;
      await send();
      nowMs += YOUNG_ID_MS;
      throw Object.assign(new Error('the connection timed out'), { name: 'TimeoutError' });
    }
    return send();
  });
  return { ...recorded, now: () => nowMs };
}

describe('the reads a create makes', () => {
  it("reads the key's record strongly consistent, and a pet back after a lost reply too: a record or a pet just written is always seen", async () => {
    const { client, inputs, now } = losingFirstReply('TransactWriteItems');
    const created = await new DynamoDbPetRepository(client, db.tableName, { now }).createOnce(newPet('Read back'), {
      owner: OWNER,
      value: 'read-back',
    });
    expect(created.replayed).toBe(false);
    expect(inputs.map(({ command }) => command)).toEqual(['GetItem', 'TransactWriteItems', 'GetItem']);
    expect(inputs[0]?.input).toMatchObject({
      ConsistentRead: true,
      Key: { pk: { S: `IDEMPOTENCY#${OWNER}#read-back` } },
    });
    expect(inputs[2]?.input).toMatchObject({ ConsistentRead: true, Key: { sk: { S: petSortKey(created.pet.id) } } });
    expect(await storedNamed('Read back')).toEqual([created.pet]);
  });
});

describe("the request's deadline", () => {
  it("stops the read of the key's record: nothing is written", async () => {
    const { client, sent } = instrumentedClient(db.endpoint);
    const repository = new DynamoDbPetRepository(client, db.tableName);
    await expect(
      repository.createOnce(
        newPet('Too late to read'),
        { owner: OWNER, value: 'late-read' },
        { deadline: deadlineWhere((call) => call === 0) },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent).not.toContain('TransactWriteItems');
    expect(await storedNamed('Too late to read')).toEqual([]);
  });

  it('stops the read of a pet back after an attempt whose outcome is unknown', async () => {
    const { client, sent, now } = losingFirstReply('PutItem');
    const repository = new DynamoDbPetRepository(client, db.tableName, { now });
    // The write's call has time; the read back (the second call) has none left.
    await expect(
      repository.create(newPet('Not read back'), { deadline: deadlineWhere((call) => call === 1) }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent.filter((command) => command === 'PutItem')).toHaveLength(1);
  });
});

describe('a write whose attempts failed in more than one way', () => {
  it('throttled, then timed out: its outcome is unknown, so the pet is read back (not ours: a 503), never drawn again', async () => {
    let nowMs = Date.now();
    let attempts = 0;
    const { client, sent } = instrumentedClient(db.endpoint, (command, _, send) => {
      if (command !== 'PutItem') return send();
      attempts += 1;
      if (attempts === 1)
        throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: { httpStatusCode: 400 } });
      if (attempts === 2) {
        nowMs += YOUNG_ID_MS;
        throw Object.assign(new Error('the connection timed out'), { name: 'TimeoutError' });
      }
      return send();
    });
    const failure = await new DynamoDbPetRepository(client, db.tableName, { now: () => nowMs })
      .create(newPet('Mixed failures'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect(sent).toEqual(['PutItem', 'PutItem', 'GetItem']);
    expect(await storedNamed('Mixed failures')).toEqual([]);
  });
});

describe("a create's transaction cancelled by DynamoDB, by its reasons (pet, record)", () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(db.endpoint);
  });
  afterEach(() => proxy.clear());
  afterAll(() => proxy.close());

  async function createOnceCancelled(reasons: CancellationReason[], name: string) {
    const { client, sent } = instrumentedClient(proxy.endpoint);
    proxy.cancelNextTransaction(reasons);
    const outcome: { created?: CreatedOnce; error?: unknown } = await new DynamoDbPetRepository(client, db.tableName)
      .createOnce(newPet(name), { owner: OWNER, value: name })
      .then(
        (created) => ({ created }),
        (error: unknown) => ({ error }),
      );
    return { ...outcome, transactions: sent.filter((command) => command === 'TransactWriteItems').length };
  }

  it('another transaction on either item: 409', async () => {
    for (const reasons of [
      [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }],
      [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
    ]) {
      const { error, transactions } = await createOnceCancelled(reasons, 'In conflict');
      expect(error).toBeInstanceOf(IdempotencyInProgressError);
      expect(error).toMatchObject({ status: 409, code: 'idempotency_in_progress', retryAfterSeconds: 1 });
      expect(transactions).toBe(1);
    }
    expect(await storedNamed('In conflict')).toEqual([]);
  });

  it("throttled on the pet's shard: nothing was written, so after a pause of at most a second a new id is drawn, and the pet and its record are written together", async () => {
    for (const [n, reasons] of [
      [{ Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity' }, { Code: 'None' }],
      [
        {
          Code: 'ProvisionedThroughputExceeded',
          Message: 'The level of configured provisioned throughput for the table was exceeded',
        },
        { Code: 'None' },
      ],
    ].entries()) {
      const name = `Throttled transaction ${n}`;
      const began = Date.now();
      const { created, transactions } = await createOnceCancelled(reasons as CancellationReason[], name);
      expect(Date.now() - began).toBeLessThan(THROTTLED_PAUSE_MS + 1_000);
      expect(created?.replayed).toBe(false);
      expect(transactions).toBe(2);
      expect(await storedNamed(name)).toEqual([created?.pet]);
      const { Item } = await db.documentClient.send(
        new GetCommand({ TableName: db.tableName, Key: idempotencyRecordKey(OWNER, name), ConsistentRead: true }),
      );
      expect(Item?.pet).toEqual(created?.pet);
    }
  });

  it("throttled on the pet's shard with the request's deadline near: the pause is cut short, and the next draw fails at once (a 503 upstream), nothing written", async () => {
    const { client, sent } = instrumentedClient(proxy.endpoint);
    proxy.cancelNextTransaction([
      { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity' },
      { Code: 'None' },
    ]);
    // The longest pause the draw could make: cut short, or this test takes a second.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const began = Date.now();
    // The record's read and the first transaction have time; the pause (the third ask) and what follows have none.
    const error: unknown = await new DynamoDbPetRepository(client, db.tableName)
      .createOnce(
        newPet('Throttled late'),
        { owner: OWNER, value: 'Throttled late' },
        { deadline: deadlineWhere((call) => call >= 2) },
      )
      .catch((failure: unknown) => failure);
    random.mockRestore();
    expect(Date.now() - began).toBeLessThan(THROTTLED_PAUSE_MS / 2);
    expect(error).toMatchObject({ name: 'AbortError' });
    // The second draw's transaction is begun and given up at once by the deadline's signal.
    expect(sent.filter((command) => command === 'TransactWriteItems')).toHaveLength(2);
    expect(await storedNamed('Throttled late')).toEqual([]);
  });

  it("throttled on the record's partition, or by the account's request limit, which no new id escapes: a 503 at once, nothing written", async () => {
    for (const [n, reasons] of [
      [{ Code: 'None' }, { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity' }],
      [
        { Code: 'RequestLimitExceeded', Message: 'Throughput exceeds the current throughput limit for your account' },
        { Code: 'None' },
      ],
    ].entries()) {
      const name = `Throttled elsewhere ${n}`;
      const { error, transactions } = await createOnceCancelled(reasons as CancellationReason[], name);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).cause).toBeInstanceOf(TransactionCanceledException);
      expect(transactions).toBe(1);
      expect(await storedNamed(name)).toEqual([]);
    }
  });

  it('throttled on every draw: a 503 after the third, nothing written', async () => {
    const { client, sent } = instrumentedClient(proxy.endpoint);
    proxy.inject('transaction-throttled', ['TransactWriteItems']);
    const error: unknown = await new DynamoDbPetRepository(client, db.tableName)
      .createOnce(newPet('Throttled always'), { owner: OWNER, value: 'Throttled always' })
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, retryAfterSeconds: 1, cause: new Error('no id written in 3 draws') });
    expect(sent.filter((command) => command === 'TransactWriteItems')).toHaveLength(3);
    expect(await storedNamed('Throttled always')).toEqual([]);
  });

  it('any other reason is a fault of ours: the cancellation itself, not a client error (a 500)', async () => {
    const { error, transactions } = await createOnceCancelled(
      [{ Code: 'ValidationError', Message: 'One or more parameter values were invalid' }, { Code: 'None' }],
      'Invalid transaction',
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(transactions).toBe(1);
  });

  it("the pet's id taken (the race time-ordered-ids.test.ts makes on DynamoDB Local): drawn again, and created", async () => {
    const { created, transactions } = await createOnceCancelled(
      [{ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }, { Code: 'None' }],
      'Id taken',
    );
    expect(created?.replayed).toBe(false);
    expect(transactions).toBe(2);
    expect(await storedNamed('Id taken')).toEqual([created?.pet]);
  });
});
