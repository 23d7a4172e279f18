import { createHash } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { ALL_CASES, BENCH_CASES, BENCH_FUNCTIONS, mainCaseOf, type BenchCase } from '../../bench/cases';
import { BENCH_LIMITS, INVOCATION_MS, lambdaContext, pathOf } from '../../bench/children/events.mjs';
import { SHARD_THRESHOLD_PER_MINUTE, shardCountFor } from '../../shared/limits/counter-shards';
import { BENCH_SETUPS } from '../../bench/setups';
import { dynamoDbStub, type StubCommands } from '../../bench/children/stub.mjs';
import { FUNCTION_SETTINGS } from '../../infra/functions';
import { deadlineBeforeTimeout } from '../../shared/dynamodb/call-deadline';
import { AWS_CALL_BOUNDS, LOCAL_CALL_BOUNDS, worstCallMs } from '../../shared/dynamodb/client';
import { stringLikeSource } from '../../local/dynamodb-rights';
import { keyItemKey } from '../../shared/auth/key-registry';
import { ITEM_PARTITIONS, PET_SHARDS, tableDefinition } from '../../shared/dynamodb/table-definition';
import { petSortKey, shardPartition } from '../../shared/pets/pet-items';
import { FUNCTIONS, OPERATIONS, type DataAccess, type DynamoDbAction } from '../../functions/table';

/**
 * The bench follows the declarations (functions/table.ts): its cases go where the functions are
 * routed, and its overhead stub (bench/children/stub.mjs, plain JS the type checker does not see)
 * answers every DynamoDB request a bench function is declared to make, in both the document
 * client's form (ours) and attribute values (the baseline), alike; and refuses the rest.
 */
const TABLE = {
  partitionKey: tableDefinition.partitionKey.name,
  sortKey: tableDefinition.sortKey.name,
  partitions: Object.fromEntries(
    Object.entries(ITEM_PARTITIONS).map(([kind, pattern]) => [kind, stringLikeSource(pattern)]),
  ),
  petShards: PET_SHARDS,
};
const stub = () => dynamoDbStub({ table: TABLE, benchKey: 'bench-key' });

/** A key of the kind: its pattern with some text for each `*`. */
const keyOf = (pattern: string) => pattern.replaceAll('*', 'bench').replaceAll('?', 'x');

/** One request of the action on a partition, as each client's command takes it. */
function send(
  commands: { documentClient: StubCommands; client: StubCommands },
  action: DynamoDbAction,
  pk: string | { index: string },
) {
  const plain = (value: string) => value;
  const attribute = (value: string) => ({ S: value });
  const both = (name: [string, string], input: (value: typeof plain | typeof attribute) => object) => {
    const [documentCommand, clientCommand] = [commands.documentClient[name[0]], commands.client[name[1]]];
    if (documentCommand === undefined || clientCommand === undefined)
      throw new Error(`the stub has no command for ${action}`);
    return { ours: documentCommand(input(plain)), baseline: clientCommand(input(attribute)) };
  };
  if (typeof pk !== 'string') {
    if (action !== 'Query') throw new Error(`the stub has no command for ${action} on an index`);
    return both(['QueryCommand', 'QueryCommand'], (value) => ({
      IndexName: pk.index,
      KeyConditionExpression: '#s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': value('available') },
    }));
  }
  const key = (value: typeof plain | typeof attribute) => ({
    [TABLE.partitionKey]: value(pk),
    [TABLE.sortKey]: value('x'),
  });
  switch (action) {
    case 'GetItem':
      return both(['GetCommand', 'GetItemCommand'], (value) => ({ Key: key(value) }));
    case 'UpdateItem':
      return both(['UpdateCommand', 'UpdateItemCommand'], (value) => ({ Key: key(value) }));
    case 'DeleteItem':
      return both(['DeleteCommand', 'DeleteItemCommand'], (value) => ({ Key: key(value) }));
    case 'PutItem':
      return both(['PutCommand', 'PutItemCommand'], (value) => ({ Item: key(value) }));
    case 'Query':
      return both(['QueryCommand', 'QueryCommand'], (value) => ({
        KeyConditionExpression: `${TABLE.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': value(pk) },
      }));
    case 'ConditionCheckItem':
      return both(['TransactWriteCommand', 'TransactWriteItemsCommand'], (value) => ({
        TransactItems: [{ ConditionCheck: { Key: key(value) } }],
      }));
    default:
      throw new Error(`the stub has no command for ${action}`);
  }
}

type Reply = {
  Item?: Record<string, unknown>;
  Attributes?: Record<string, unknown>;
  Items?: Record<string, unknown>[];
  LastEvaluatedKey?: Record<string, unknown>;
};
/** The baseline's reply in the document client's form. */
const plainOf = (reply: Reply) => ({
  ...(reply.Item === undefined ? {} : { Item: unmarshall(reply.Item as never) }),
  ...(reply.Attributes === undefined ? {} : { Attributes: unmarshall(reply.Attributes as never) }),
  ...(reply.Items === undefined ? {} : { Items: reply.Items.map((item) => unmarshall(item as never)) }),
  ...(reply.LastEvaluatedKey === undefined ? {} : { LastEvaluatedKey: unmarshall(reply.LastEvaluatedKey as never) }),
});

/** Every request a bench function is declared to make: an action on a kind of item, or on an index. */
const DECLARED = BENCH_FUNCTIONS.flatMap((fn) =>
  FUNCTIONS[fn].dynamodb.flatMap((right: DataAccess) =>
    (right.actions as readonly DynamoDbAction[]).flatMap(
      (action): { fn: string; action: DynamoDbAction; on: string; pk: string | { index: string } }[] =>
        'index' in right
          ? [{ fn, action, on: `index ${right.index}`, pk: { index: right.index } }]
          : right.items.map((kind) => ({ fn, action, on: kind, pk: keyOf(ITEM_PARTITIONS[kind]) })),
    ),
  ),
);

describe('the overhead stub', () => {
  it.each(DECLARED.map((right) => [right.fn, right.action, right.on, right] as const))(
    'answers %s: %s on %s, alike for both sides',
    (_, __, ___, { action, pk }) => {
      const { ours, baseline } = send(stub(), action, pk);
      expect(plainOf(baseline as Reply)).toEqual(ours);
    },
  );

  it('refuses a request it has no answer for, naming the item kind or the key', () => {
    const commands = stub();
    expect(() => send(commands, 'DeleteItem', keyOf(ITEM_PARTITIONS.idempotencyRecords))).toThrow(
      'no stub for DeleteItem on idempotencyRecords',
    );
    expect(() => send(commands, 'GetItem', 'NOTHING#1')).toThrow('no stub for GetItem on the key "NOTHING#1"');
    expect(() => send(commands, 'Query', { index: 'byName' })).toThrow('no stub for Query on index byName');
    expect(commands.misses[0]).toBe('no stub for DeleteItem on idempotencyRecords');
  });

  it("answers a shard's query as DynamoDB pages it: that shard's pets above the lower bound, in ascending id, at most Limit, with where it stopped; alike for both sides", () => {
    const { documentClient, client } = stub();
    const shard = 3;
    const input = (value: (text: string) => unknown) => ({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': value(shardPartition(shard)),
        ':first': value(petSortKey(20)),
        ':last': value(petSortKey(Number.MAX_SAFE_INTEGER)),
      },
      Limit: 5,
    });
    const ours = documentClient.QueryCommand!(input((text) => text)) as Reply;
    const baseline = client.QueryCommand!(input((text) => ({ S: text }))) as Reply;
    expect(plainOf(baseline)).toEqual(ours);
    const ids = (ours.Items ?? []).map((item) => item.id as number);
    expect(ids).toHaveLength(5);
    expect(ids.every((id) => id >= 20 && id % PET_SHARDS === shard)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ours.LastEvaluatedKey).toEqual({ pk: shardPartition(shard), sk: petSortKey(ids.at(-1) as number) });
    // The status index's shard of a status, by id.
    const byStatus = client.QueryCommand!({
      IndexName: 'petsByStatus',
      KeyConditionExpression: '#key = :key AND id BETWEEN :first AND :last',
      ExpressionAttributeNames: { '#key': 'statusShard' },
      ExpressionAttributeValues: {
        ':key': { S: `available#${shard}` },
        ':first': { N: '20' },
        ':last': { N: String(Number.MAX_SAFE_INTEGER) },
      },
      Limit: 5,
    }) as Reply;
    expect(plainOf(byStatus).Items?.map((item) => item.id)).toEqual(ids);
  });

  it('finds a pet by its key in its own shard only', () => {
    const { client } = stub();
    const get = (id: number, shard: number) =>
      plainOf(
        client.GetItemCommand!({ Key: { pk: { S: shardPartition(shard) }, sk: { S: petSortKey(id) } } }) as Reply,
      );
    expect(get(11, 11 % PET_SHARDS).Item).toMatchObject({
      pk: shardPartition(11 % PET_SHARDS),
      sk: petSortKey(11),
      id: 11,
      statusShard: `available#${11 % PET_SHARDS}`,
    });
    expect(get(11, (11 + 1) % PET_SHARDS)).toEqual({});
  });

  it('tells the bench key from any other in the key registry', () => {
    const { documentClient } = stub();
    const hash = createHash('sha256').update('bench-key').digest('hex');
    const other = createHash('sha256').update('other').digest('hex');
    expect(documentClient.GetCommand!({ Key: keyItemKey(hash) })).toMatchObject({
      Item: { ...keyItemKey(hash), plan: 'enterprise' },
    });
    expect(documentClient.GetCommand!({ Key: keyItemKey(other) })).toEqual({});
  });
});

describe('the bench cases', () => {
  it("use a key of the most a minute still counted on one item: the bench measures what every key up to the sharded counters' threshold does", () => {
    expect(BENCH_LIMITS.perMinute).toBe(SHARD_THRESHOLD_PER_MINUTE);
    expect(shardCountFor(BENCH_LIMITS, SHARD_THRESHOLD_PER_MINUTE)).toBe(1);
  });

  it.each(ALL_CASES.map((benchCase) => [benchCase.name, benchCase] as const))(
    '%s goes where its function is routed',
    (_, { fn, event }) => {
      if (fn === 'authorizer') {
        expect(event.type).toBe('authorizer');
      } else {
        expect(event.type).toBe('request');
        expect({ method: event.method, path: event.resource }).toEqual(OPERATIONS[fn].route);
      }
    },
  );

  it.each(
    ALL_CASES.filter((benchCase) => benchCase.status < 300).map((benchCase) => [benchCase.name, benchCase] as const),
  )(
    '%s: a path parameter of a case that succeeds (an item of its own to read or use up) comes from its setup, never from data made by hand',
    (_, { fn, name, event, setup }) => {
      const declared = (BENCH_CASES[fn].cases as Readonly<Record<string, BenchCase>>)[name] as BenchCase;
      const parameters = [...event.resource.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
      for (const parameter of parameters) {
        expect([parameter, declared.event.pathParameters?.[parameter]]).toEqual([parameter, undefined]);
        const placeholder: Readonly<Record<string, string>> | undefined =
          setup === undefined ? undefined : BENCH_SETUPS[setup].placeholder.pathParameters;
        expect([parameter, placeholder?.[parameter]]).toEqual([parameter, expect.any(String)]);
      }
      // Sent where no data is made (the overhead's stub), the case names every parameter of its route.
      expect(() => pathOf(event)).not.toThrow();
    },
  );

  it("the overhead stub answers a setup's placeholder as though its data were there: getPet's pet is found, each time", () => {
    const { client } = stub();
    const petId = Number(mainCaseOf('getPet').event.pathParameters?.petId);
    const get = () =>
      plainOf(
        client.GetItemCommand!({
          Key: { pk: { S: shardPartition(petId % PET_SHARDS) }, sk: { S: petSortKey(petId) } },
        }) as Reply,
      );
    expect(get().Item).toMatchObject({ id: petId });
    expect(get()).toEqual(get());
  });

  it.each(BENCH_FUNCTIONS)('%s: its main case succeeds and is measured against DynamoDB', (fn) => {
    const main = mainCaseOf(fn);
    expect(main.status).toBeLessThan(300);
    expect(main.dynamoDb).toBeDefined();
  });

  it("gives each invocation the time that keeps AWS's choice: in AWS no DynamoDB call needs an abort signal, and none does in the bench", () => {
    const inAws = deadlineBeforeTimeout({ getRemainingTimeInMillis: () => FUNCTION_SETTINGS.timeout.toMilliseconds() });
    expect(inAws?.signalForCall(worstCallMs(AWS_CALL_BOUNDS))).toBeUndefined();
    const inBench = deadlineBeforeTimeout(lambdaContext());
    expect(inBench?.signalForCall(worstCallMs(LOCAL_CALL_BOUNDS))).toBeUndefined();
    // The local client's bounds alone would need one within AWS's 10 s.
    expect(worstCallMs(LOCAL_CALL_BOUNDS)).toBeGreaterThan(FUNCTION_SETTINGS.timeout.toMilliseconds());
    expect(INVOCATION_MS).toBeGreaterThan(worstCallMs(LOCAL_CALL_BOUNDS));
  });
});
