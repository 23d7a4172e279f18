import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  DynamoDBClient,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { setClock } from '../../shared/clock';
import { PET_SHARDS, LIST_INDEX, STATUS_INDEX } from '../../shared/dynamodb/table-definition';
import { ENTERPRISE_TEMPLATE_LIMITS } from '../../shared/limits/plans';
import { shardPartition } from '../../shared/pets/pet-items';
import { expectErrorShape, startTestApi, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';
import { startPartitionModel, type PartitionModel } from '../support/partition-model';

/**
 * The partition model in front of this file's DynamoDB Local: a request within its partitions'
 * budget passes untouched and is charged what DynamoDB would charge; one over budget is refused as
 * DynamoDB refuses it; and the service, behind it, answers 503 with Retry-After and writes nothing
 * half. At 1/1000 of DynamoDB's rates a partition serves 1 write unit and 3 read units a second.
 */
const db = testDatabase();
let model: PartitionModel;
let direct: DynamoDBDocumentClient;
let modelled: DynamoDBDocumentClient;
let api: TestApi;

const clientFor = (endpoint: string) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    }),
  );

beforeAll(async () => {
  model = await startPartitionModel(db.endpoint, { factor: 1_000 });
  direct = clientFor(db.endpoint);
  modelled = clientFor(model.endpoint);
  process.env.DYNAMODB_ENDPOINT = model.endpoint;
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await model.close();
});

const table = () => db.tableName;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the partition model', () => {
  it('passes a request within budget untouched and charges what DynamoDB charges, per partition', async () => {
    model.reset();
    const item = { pk: 'MODEL#a', sk: 'one', name: 'Rex', statusShard: 'available#1', id: 1 };
    await modelled.send(new PutCommand({ TableName: table(), Item: item }));
    const viaModel = await modelled.send(
      new GetCommand({ TableName: table(), Key: { pk: 'MODEL#a', sk: 'one' }, ConsistentRead: true }),
    );
    const straight = await direct.send(
      new GetCommand({ TableName: table(), Key: { pk: 'MODEL#a', sk: 'one' }, ConsistentRead: true }),
    );
    expect(viaModel.Item).toEqual(straight.Item);
    expect(viaModel.Item).toEqual(item);
    // The put: 1 unit on its partition and 1 on the status index's (its shard of `available`); the strongly consistent read: 1.
    expect(model.use()).toEqual(
      expect.arrayContaining([
        { partition: 'MODEL#a', readUnits: 1, writeUnits: 1, throttled: 0 },
        { partition: `${STATUS_INDEX}:available#1`, readUnits: 0, writeUnits: 1, throttled: 0 },
      ]),
    );
    expect(model.throttledInOrder()).toEqual([]);
  });

  it("refuses a write over its partition's budget with ProvisionedThroughputExceededException, doing nothing, while another partition is served", async () => {
    model.reset();
    await modelled.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'MODEL#b', sk: 'counter' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const refused = modelled.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'MODEL#b', sk: 'counter' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    await expect(refused).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(
      (await direct.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#b', sk: 'counter' } }))).Item?.n,
    ).toBe(1);
    await modelled.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'MODEL#c', sk: 'counter' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    expect(model.throttledInOrder()).toEqual(['MODEL#b']);
    // A second later the partition has its unit again.
    await pause(1_050);
    await modelled.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'MODEL#b', sk: 'counter' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  });

  it('admits updates that make new items by the partitions their keys name: a burst over five new partitions is served', async () => {
    model.reset();
    const updates = Array.from({ length: 5 }, (_, n) =>
      modelled.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: `MODEL#new-${n}`, sk: 'counter' },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
    await Promise.all(updates);
    expect(model.throttledInOrder()).toEqual([]);
    expect(
      model
        .use()
        .map((use) => use.partition)
        .sort(),
    ).toEqual(Array.from({ length: 5 }, (_, n) => `MODEL#new-${n}`));
  });

  it('emptied, a partition has no burst saved: it serves its rate from then on', async () => {
    model.reset({ buckets: 'empty' });
    const put = () => modelled.send(new PutCommand({ TableName: table(), Item: { pk: 'MODEL#g', sk: 'one' } }));
    await expect(put()).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    await pause(1_050);
    await put();
    model.reset();
    await put();
  });

  it("charges a Query by the data it read, and refuses reads once the partition's read units are spent", async () => {
    model.reset();
    for (let sk = 0; sk < 4; sk += 1)
      await direct.send(
        new PutCommand({ TableName: table(), Item: { pk: 'MODEL#d', sk: String(sk), text: 'x'.repeat(3_000) } }),
      );
    // 4 items of about 3 KB, read strongly: 12 KB, 3 units: the whole second's budget.
    await modelled.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'MODEL#d' },
        ConsistentRead: true,
      }),
    );
    expect(model.use().find((use) => use.partition === 'MODEL#d')?.readUnits).toBe(3);
    await expect(
      modelled.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#d', sk: '0' } })),
    ).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
  });

  it('refuses a transaction with TransactionCanceledException, ThrottlingError on the item whose partition is spent', async () => {
    model.reset();
    await modelled.send(new PutCommand({ TableName: table(), Item: { pk: 'MODEL#e', sk: 'first' } }));
    const transaction = modelled.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { pk: 'MODEL#f', sk: 'x' } } },
          { Put: { TableName: table(), Item: { pk: 'MODEL#e', sk: 'second' } } },
        ],
      }),
    );
    const error = await transaction.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'None',
      'ThrottlingError',
    ]);
    expect(
      (await direct.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#f', sk: 'x' } }))).Item,
    ).toBeUndefined();
  });

  it('charges a transaction cancelled by a failed condition for reading its items (doubled), not for the writes and index entries it did not make', async () => {
    model.factor = 1;
    onTestFinished(() => {
      model.factor = 1_000;
    });
    await direct.send(
      new PutCommand({ TableName: table(), Item: { pk: 'MODEL#h', sk: 'taken', statusShard: 'sold#1', id: 9 } }),
    );
    model.reset();
    const cancelled = modelled.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { pk: 'MODEL#i', sk: 'new', statusShard: 'sold#2', id: 10 } } },
          {
            Put: {
              TableName: table(),
              Item: { pk: 'MODEL#h', sk: 'taken', statusShard: 'sold#1', id: 9 },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    await expect(cancelled).rejects.toBeInstanceOf(TransactionCanceledException);
    const written = model.use().filter((use) => use.writeUnits > 0);
    expect(
      written
        .map(({ partition, writeUnits }) => ({ partition, writeUnits }))
        .sort((a, b) => a.partition.localeCompare(b.partition)),
    ).toEqual([
      { partition: 'MODEL#h', writeUnits: 2 },
      { partition: 'MODEL#i', writeUnits: 2 },
    ]);
  });
});

describe('the service behind the partition model', () => {
  it("answers 503 with Retry-After once the partition a burst of one key's creates shares is spent (its request counter: pets are spread over the shards), and every pet it stored was answered 201", async () => {
    model.reset();
    await pause(1_100);
    const before = (await db.storedPets()).length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        api.request('POST', '/pets', { body: { name: `Burst ${n}`, categoryId: 1 } }),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expectErrorShape(answer, 503, 'service_unavailable');
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + refused.length).toBe(answers.length);
    expect((await db.storedPets()).length - before).toBe(created.length);
    // Every one of the six counts on the key's counter (1 unit a second here); no partition is written by every create any more.
    expect(model.throttledInOrder()[0]).toMatch(/^RATE#key#[0-9a-f]{16}$/);
  });

  it('answers 503 with Retry-After once the pet partitions a create writes are spent, whatever id it draws, and stores nothing', async () => {
    // Six keys, each with its own counter, so that only the pets' partitions can run short: every
    // shard is spent for many seconds beforehand. A create whose write is throttled draws a new id
    // (nothing was written), three at most, and each lands on a spent shard.
    // The service's clock runs from mid-minute: a minute that turned between a key's first request
    // and its create would reopen its counter's windows (two writes), and throttle the counter.
    const started = Date.now();
    const midMinute = Math.floor(started / 60_000) * 60_000 + 30_000;
    onTestFinished(setClock(() => midMinute + (Date.now() - started)));
    const registry = new KeyRegistry(db.documentClient, table());
    const keys = Array.from({ length: 6 }, (_, n) => `partition-model-shard-key-${n}`);
    for (const key of keys) await registry.register(key, 'enterprise', ENTERPRISE_TEMPLATE_LIMITS);
    // A key's first request opens its counter's windows (two writes, more than a second's unit here): at DynamoDB's rates.
    model.factor = 1;
    try {
      for (const key of keys) expect((await api.request('GET', '/pets/1', { key })).status).toBe(404);
    } finally {
      model.factor = 1_000;
    }
    model.reset();
    await pause(1_100);
    const spent = Array.from({ length: PET_SHARDS }, (_, n) => shardPartition(n));
    // About 20 KB each: 20 units, some twenty seconds' worth beyond the bucket (admitted full, charged what it cost).
    for (const pk of spent)
      await modelled.send(
        new PutCommand({ TableName: table(), Item: { pk, sk: 'spent', filler: 'x'.repeat(20_000) } }),
      );
    const before = (await db.storedPets()).length;
    const answers = await Promise.all(
      keys.map((key, n) => api.request('POST', '/pets', { key, body: { name: `Spread ${n}`, categoryId: 1 } })),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused).toHaveLength(keys.length);
    for (const answer of refused) {
      expectErrorShape(answer, 503, 'service_unavailable');
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + refused.length).toBe(answers.length);
    const stored = await db.storedPets();
    expect(stored.length - before).toBe(created.length);
    for (const answer of created)
      expect(stored).toContainEqual(expect.objectContaining({ id: answer.body.id, name: answer.body.name }));
    // What refused them: pet shards, never a key's counter (nor an index: a write refused on its shard touches none).
    expect(model.throttledInOrder().length).toBeGreaterThan(0);
    const shard = `[0-${PET_SHARDS - 1}]`;
    for (const partition of model.throttledInOrder())
      expect(partition).toMatch(
        new RegExp(`^(PET#${shard}|${STATUS_INDEX}:available#${shard}|${LIST_INDEX}:pets#${shard})$`),
      );
  });
});

describe('the partition model with replica lag', () => {
  /** Every write lags the whole LAG_MS: what a read right after it shows is certain. */
  const LAG_MS = 1_000;
  let lagging: PartitionModel;
  let client: DynamoDBDocumentClient;
  beforeAll(async () => {
    lagging = await startPartitionModel(db.endpoint, { factor: 1, replicaLagMs: LAG_MS, lagFraction: () => 1 });
    client = clientFor(lagging.endpoint);
  });
  afterAll(() => lagging.close());

  const get = (pk: string, sk: string, ConsistentRead?: boolean) =>
    client.send(
      new GetCommand({
        TableName: table(),
        Key: { pk, sk },
        ...(ConsistentRead === undefined ? {} : { ConsistentRead }),
      }),
    );
  const query = (pk: string, extra: Partial<ConstructorParameters<typeof QueryCommand>[0]> = {}) =>
    client.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ...extra,
      }),
    );
  const byStatus = (shard: string) =>
    client.send(
      new QueryCommand({
        TableName: table(),
        IndexName: STATUS_INDEX,
        KeyConditionExpression: 'statusShard = :s',
        ExpressionAttributeValues: { ':s': shard },
      }),
    );

  it('hides an item written through it from eventually consistent reads (GetItem, Query, an index Query) until its lag has passed; strongly consistent reads show it at once', async () => {
    const item = { pk: 'LAG#a', sk: '1', statusShard: 'lagging#a', id: 1, name: 'Late' };
    await client.send(new PutCommand({ TableName: table(), Item: item }));
    const answered = performance.now();
    expect((await get('LAG#a', '1')).Item).toBeUndefined();
    expect((await get('LAG#a', '1', false)).Item).toBeUndefined();
    expect(await query('LAG#a')).toMatchObject({ Items: [], Count: 0, ScannedCount: 0 });
    expect((await byStatus('lagging#a')).Items).toEqual([]);
    expect((await get('LAG#a', '1', true)).Item).toEqual(item);
    expect((await query('LAG#a', { ConsistentRead: true })).Items).toEqual([item]);
    // (Each of these reads was made within the lag: otherwise they say nothing.)
    expect(performance.now() - answered).toBeLessThan(LAG_MS);
    await pause(answered + LAG_MS + 20 - performance.now());
    expect((await get('LAG#a', '1')).Item).toEqual(item);
    expect((await query('LAG#a')).Items).toEqual([item]);
    expect((await byStatus('lagging#a')).Items).toEqual([
      { pk: 'LAG#a', sk: '1', statusShard: 'lagging#a', id: 1, name: 'Late' },
    ]);
  });

  it('leaves a hidden item out of a page without ending it: Count goes down, LastEvaluatedKey still names the last item read, and the next page follows it', async () => {
    for (const sk of ['1', '2', '4'])
      await direct.send(new PutCommand({ TableName: table(), Item: { pk: 'LAG#b', sk } }));
    await client.send(new PutCommand({ TableName: table(), Item: { pk: 'LAG#b', sk: '3' } }));
    const first = await query('LAG#b', { Limit: 3 });
    expect(first).toMatchObject({
      Items: [
        { pk: 'LAG#b', sk: '1' },
        { pk: 'LAG#b', sk: '2' },
      ],
      Count: 2,
      ScannedCount: 2,
      LastEvaluatedKey: { pk: 'LAG#b', sk: '3' },
    });
    // A page of hidden items only still says more may follow.
    const onlyHidden = await query('LAG#b', { Limit: 1, ExclusiveStartKey: { pk: 'LAG#b', sk: '2' } });
    expect(onlyHidden).toMatchObject({ Items: [], Count: 0, LastEvaluatedKey: { pk: 'LAG#b', sk: '3' } });
    const next = await query('LAG#b', { Limit: 3, ExclusiveStartKey: first.LastEvaluatedKey });
    expect(next.Items).toEqual([{ pk: 'LAG#b', sk: '4' }]);
    expect(next.LastEvaluatedKey).toBeUndefined();
    // Read strongly, the same page holds the new item.
    expect((await query('LAG#b', { Limit: 3, ConsistentRead: true })).Items?.map((item) => item.sk)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('does not hide an item that a refused write left as it was, nor items written straight to DynamoDB Local; set to 0 it shows every item at once', async () => {
    await direct.send(new PutCommand({ TableName: table(), Item: { pk: 'LAG#c', sk: 'there', name: 'Before' } }));
    const refused = client.send(
      new PutCommand({
        TableName: table(),
        Item: { pk: 'LAG#c', sk: 'there', name: 'After' },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await expect(refused).rejects.toThrow();
    expect((await get('LAG#c', 'there')).Item).toEqual({ pk: 'LAG#c', sk: 'there', name: 'Before' });
    await client.send(new PutCommand({ TableName: table(), Item: { pk: 'LAG#c', sk: 'new' } }));
    expect((await get('LAG#c', 'new')).Item).toBeUndefined();
    lagging.replicaLagMs = 0;
    onTestFinished(() => {
      lagging.replicaLagMs = LAG_MS;
    });
    expect((await get('LAG#c', 'new')).Item).toEqual({ pk: 'LAG#c', sk: 'new' });
  });

  it("draws each write's lag at random up to replicaLagMs: every item shows within it, and once shown stays shown", async () => {
    const random = await startPartitionModel(db.endpoint, { factor: 1, replicaLagMs: 300 });
    onTestFinished(() => random.close());
    const randomClient = clientFor(random.endpoint);
    const sks = Array.from({ length: 20 }, (_, n) => String(n).padStart(2, '0'));
    await Promise.all(
      sks.map((sk) => randomClient.send(new PutCommand({ TableName: table(), Item: { pk: 'LAG#d', sk } }))),
    );
    const answered = performance.now();
    const shown = new Set<string>();
    for (;;) {
      const at = performance.now();
      const page = await randomClient.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'LAG#d' },
        }),
      );
      const now = new Set((page.Items ?? []).map((item) => String(item.sk)));
      for (const sk of shown) expect(now.has(sk)).toBe(true);
      for (const sk of now) shown.add(sk);
      if (at >= answered + 300) break;
      await pause(15);
    }
    expect([...shown].sort()).toEqual(sks);
  });
});
