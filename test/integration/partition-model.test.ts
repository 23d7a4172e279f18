import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DynamoDBClient, ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
  DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 }));

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
    const item = { pk: 'MODEL#a', sk: 'one', name: 'Rex', status: 'available', id: 1 };
    await modelled.send(new PutCommand({ TableName: table(), Item: item }));
    const viaModel = await modelled.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#a', sk: 'one' }, ConsistentRead: true }));
    const straight = await direct.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#a', sk: 'one' }, ConsistentRead: true }));
    expect(viaModel.Item).toEqual(straight.Item);
    expect(viaModel.Item).toEqual(item);
    // The put: 1 unit on its partition and 1 on the status index's; the strongly consistent read: 1.
    expect(model.use()).toEqual(
      expect.arrayContaining([
        { partition: 'MODEL#a', readUnits: 1, writeUnits: 1, throttled: 0 },
        { partition: 'byStatus:available', readUnits: 0, writeUnits: 1, throttled: 0 },
      ]),
    );
    expect(model.throttledInOrder()).toEqual([]);
  });

  it('refuses a write over its partition\'s budget with ProvisionedThroughputExceededException, doing nothing, while another partition is served', async () => {
    model.reset();
    await modelled.send(new UpdateCommand({ TableName: table(), Key: { pk: 'MODEL#b', sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    const refused = modelled.send(new UpdateCommand({ TableName: table(), Key: { pk: 'MODEL#b', sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    await expect(refused).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    expect((await direct.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#b', sk: 'counter' } }))).Item?.n).toBe(1);
    await modelled.send(new UpdateCommand({ TableName: table(), Key: { pk: 'MODEL#c', sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    expect(model.throttledInOrder()).toEqual(['MODEL#b']);
    // A second later the partition has its unit again.
    await pause(1_050);
    await modelled.send(new UpdateCommand({ TableName: table(), Key: { pk: 'MODEL#b', sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
  });

  it('admits updates that make new items by the partitions their keys name: a burst over five new partitions is served', async () => {
    model.reset();
    const updates = Array.from({ length: 5 }, (_, n) =>
      modelled.send(new UpdateCommand({ TableName: table(), Key: { pk: `MODEL#new-${n}`, sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } })),
    );
    await Promise.all(updates);
    expect(model.throttledInOrder()).toEqual([]);
    expect(model.use().map((use) => use.partition).sort()).toEqual(Array.from({ length: 5 }, (_, n) => `MODEL#new-${n}`));
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

  it('charges a Query by the data it read, and refuses reads once the partition\'s read units are spent', async () => {
    model.reset();
    for (let sk = 0; sk < 4; sk += 1) await direct.send(new PutCommand({ TableName: table(), Item: { pk: 'MODEL#d', sk: String(sk), text: 'x'.repeat(3_000) } }));
    // 4 items of about 3 KB, read strongly: 12 KB, 3 units: the whole second's budget.
    await modelled.send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'MODEL#d' }, ConsistentRead: true }));
    expect(model.use().find((use) => use.partition === 'MODEL#d')?.readUnits).toBe(3);
    await expect(modelled.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#d', sk: '0' } }))).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
  });

  it('refuses a transaction with TransactionCanceledException, ThrottlingError on the item whose partition is spent', async () => {
    model.reset();
    await modelled.send(new PutCommand({ TableName: table(), Item: { pk: 'MODEL#e', sk: 'first' } }));
    const transaction = modelled.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table(), Item: { pk: 'MODEL#f', sk: 'x' } } }, { Put: { TableName: table(), Item: { pk: 'MODEL#e', sk: 'second' } } }],
      }),
    );
    const error = await transaction.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual(['None', 'ThrottlingError']);
    expect((await direct.send(new GetCommand({ TableName: table(), Key: { pk: 'MODEL#f', sk: 'x' } }))).Item).toBeUndefined();
  });

  it('charges a transaction cancelled by a failed condition for reading its items (doubled), not for the writes and index entries it did not make', async () => {
    model.factor = 1;
    onTestFinished(() => {
      model.factor = 1_000;
    });
    await direct.send(new PutCommand({ TableName: table(), Item: { pk: 'MODEL#h', sk: 'taken', status: 'sold', id: 9 } }));
    model.reset();
    const cancelled = modelled.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { pk: 'MODEL#i', sk: 'new', status: 'sold', id: 10 } } },
          { Put: { TableName: table(), Item: { pk: 'MODEL#h', sk: 'taken', status: 'sold', id: 9 }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    await expect(cancelled).rejects.toBeInstanceOf(TransactionCanceledException);
    const written = model.use().filter((use) => use.writeUnits > 0);
    expect(written.map(({ partition, writeUnits }) => ({ partition, writeUnits })).sort((a, b) => a.partition.localeCompare(b.partition))).toEqual([
      { partition: 'MODEL#h', writeUnits: 2 },
      { partition: 'MODEL#i', writeUnits: 2 },
    ]);
  });
});

describe('the service behind the partition model', () => {
  it('answers 503 with Retry-After once the id sequence\'s partition is spent, and every pet it stored was answered 201', async () => {
    model.reset();
    await pause(1_100);
    const before = (await db.storedPets()).length;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => api.request('POST', '/pets', { body: { name: `Burst ${n}`, categoryId: 1 } })));
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expectErrorShape(answer, 503, 'service_unavailable');
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + refused.length).toBe(answers.length);
    expect((await db.storedPets()).length - before).toBe(created.length);
    expect(model.throttledInOrder()).toContain('SEQUENCE');
  });
});
