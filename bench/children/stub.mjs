// The overhead run's DynamoDB: `send` of the SDK clients both sides use, answered at once from a
// table of answers by DynamoDB action and by the kind of item the request's partition key names
// (ITEM_PARTITIONS of shared/dynamodb/table-definition.ts, handed over by bench/run.ts: `*` stands
// for any text), or `index <name>` for a Query of an index. A request it has no answer for throws
// ("no stub for UpdateItem on pets"): a new operation's requests need answers here, never a
// default. Every answer is built once, before timing starts, in both forms (plain items for the
// document client, which only our authorizer uses; attribute values for our operations and the
// baseline), and the kind of each key is looked up once: the stub costs both sides the same few
// nanoseconds, it converts nothing per call. (Until issue 26 our operations used the document
// client too, so the stub spared them its marshalling, which the baseline's hand-written attribute
// values paid: their overhead now includes writing and reading their items.)
import { createHash } from 'node:crypto';
import { BENCH_LIMITS } from './events.mjs';

const pet = (id) => ({ pk: 'PET', sk: String(id).padStart(16, '0'), id, name: `Pet ${id}`, categoryId: 3, status: 'available' });

/** A GetItem answer that depends on the sort key: `bySortKey[sk]`, else `otherwise` (a key item's sort key is its hash, as its partition's). */
const bySortKey = (replies, otherwise) => ({ bySortKey: replies, otherwise });

/** The answers in the document client's form, by action and item kind. */
function answersFor(benchKey) {
  // The registry knows the bench key and nothing else (the authorizer's "no valid key" case).
  const benchKeyHash = createHash('sha256').update(benchKey).digest('hex');
  const keyItem = { Item: { pk: `APIKEY#${benchKeyHash}`, sk: benchKeyHash, registry: 'keys', plan: 'enterprise', limits: BENCH_LIMITS, createdAt: '2026-11-22T00:00:00.000Z' } };
  const counters = { Attributes: { minuteCount: 1, dayCount: 1 } };
  const page = { Items: Array.from({ length: 21 }, (_, i) => pet(i + 1)) };
  return {
    GetItem: {
      pets: { Item: pet(1) },
      keyRegistry: bySortKey({ [benchKeyHash]: keyItem }, {}),
      // The previous layout's partition: read by no code of this version, empty.
      formerKeyRegistry: {},
      // An idempotency record is never found: every bench create with a key is its key's first use.
      idempotencyRecords: {},
    },
    UpdateItem: { idSequence: { Attributes: { value: 7 } }, keyCounters: counters, addressCounters: counters },
    Query: { pets: page, 'index byStatus': page },
    PutItem: { pets: {}, idempotencyRecords: {} },
  };
}

const attributes = (item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'number' ? { N: String(v) } : typeof v === 'string' ? { S: v } : { M: attributes(v) }]));
const mapValues = (object, f) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v)]));
function marshalled(reply) {
  if (reply.bySortKey !== undefined) return bySortKey(mapValues(reply.bySortKey, marshalled), marshalled(reply.otherwise));
  return {
    ...(reply.Item === undefined ? {} : { Item: attributes(reply.Item) }),
    ...(reply.Attributes === undefined ? {} : { Attributes: attributes(reply.Attributes) }),
    ...(reply.Items === undefined ? {} : { Items: reply.Items.map(attributes) }),
  };
}


const TRANSACTION_ACTIONS = { Put: ['PutItem', 'Item'], Update: ['UpdateItem', 'Key'], Delete: ['DeleteItem', 'Key'], ConditionCheck: ['ConditionCheckItem', 'Key'] };

/**
 * The stub's commands for each client, by command class name.
 * `table`: `{ partitionKey, sortKey, partitions: { kind: regular expression source } }` (IAM's
 * StringLike patterns of ITEM_PARTITIONS, as local/dynamodb-rights.ts's stringLikeSource writes them).
 */
export function dynamoDbStub({ table, benchKey }) {
  const { partitionKey, sortKey } = table;
  const plain = answersFor(benchKey);
  const attributeValues = mapValues(plain, (byKind) => mapValues(byKind, marshalled));
  const patterns = Object.entries(table.partitions).map(([kind, source]) => [kind, new RegExp(source, 's')]);
  const kinds = new Map();
  const kindOf = (key) => {
    let kind = kinds.get(key);
    if (kind === undefined) {
      kind = patterns.find(([, pattern]) => typeof key === 'string' && pattern.test(key))?.[0] ?? null;
      kinds.set(key, kind);
    }
    return kind;
  };
  /** The first request the stub could not answer, to tell when a case then answers otherwise. */
  const misses = [];
  const miss = (message) => {
    misses.push(message);
    return new Error(message);
  };
  const answer = (answers, action, key, sk) => {
    const kind = kindOf(key);
    const reply = kind === null ? undefined : answers[action]?.[kind];
    if (reply === undefined) throw miss(`no stub for ${action} on ${kind ?? `the key ${JSON.stringify(key)}`}`);
    return reply.bySortKey === undefined ? reply : (reply.bySortKey[sk] ?? reply.otherwise);
  };
  // The partition a Query reads: its key condition's `name = :value` on the partition key, parsed once per expression.
  const conditions = new Map();
  const equalities = (expression) => {
    let found = conditions.get(expression);
    if (found === undefined) {
      found = [];
      for (const condition of String(expression ?? '').split(/\s+AND\s+/i)) {
        const equal = /^\s*\(?\s*(#?\w+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(condition);
        if (equal !== null) found.push([equal[1], equal[2]]);
      }
      conditions.set(expression, found);
    }
    return found;
  };
  const query = (answers, input, valueOf) => {
    if (input.IndexName !== undefined) {
      const reply = answers.Query?.[`index ${input.IndexName}`];
      if (reply === undefined) throw miss(`no stub for Query on index ${input.IndexName}`);
      return reply;
    }
    const on = equalities(input.KeyConditionExpression).find(([name]) => (name.startsWith('#') ? input.ExpressionAttributeNames?.[name] : name) === partitionKey);
    return answer(answers, 'Query', on === undefined ? undefined : valueOf(input.ExpressionAttributeValues?.[on[1]]));
  };
  const transaction = (answers, items, valueOf) => {
    for (const item of items) {
      for (const request in item) {
        const [action, field] = TRANSACTION_ACTIONS[request] ?? [];
        if (action === undefined) throw miss(`no stub for ${request} in a transaction`);
        answer(answers, action, valueOf(item[request][field]?.[partitionKey]));
      }
    }
    return {};
  };
  const s = (value) => value?.S;
  return {
    misses,
    /** For DynamoDBDocumentClient (our authorizer's key registry): plain items. */
    documentClient: {
      GetCommand: (input) => answer(plain, 'GetItem', input.Key[partitionKey], input.Key[sortKey]),
      UpdateCommand: (input) => answer(plain, 'UpdateItem', input.Key[partitionKey], input.Key[sortKey]),
      DeleteCommand: (input) => answer(plain, 'DeleteItem', input.Key[partitionKey], input.Key[sortKey]),
      PutCommand: (input) => answer(plain, 'PutItem', input.Item[partitionKey], input.Item[sortKey]),
      QueryCommand: (input) => query(plain, input, (value) => value),
      TransactWriteCommand: (input) => transaction(plain, input.TransactItems, (value) => value),
    },
    /** For DynamoDBClient (our operations and the baseline): attribute values. */
    client: {
      GetItemCommand: (input) => answer(attributeValues, 'GetItem', s(input.Key[partitionKey]), s(input.Key[sortKey])),
      UpdateItemCommand: (input) => answer(attributeValues, 'UpdateItem', s(input.Key[partitionKey]), s(input.Key[sortKey])),
      DeleteItemCommand: (input) => answer(attributeValues, 'DeleteItem', s(input.Key[partitionKey]), s(input.Key[sortKey])),
      PutItemCommand: (input) => answer(attributeValues, 'PutItem', s(input.Item[partitionKey]), s(input.Item[sortKey])),
      QueryCommand: (input) => query(attributeValues, input, s),
      TransactWriteItemsCommand: (input) => transaction(attributeValues, input.TransactItems, s),
    },
  };
}

/** Replaces `send` of an SDK client class: each command answered by its entry in `commands`; one without is a miss. */
export function install(Client, commands, misses = []) {
  Client.prototype.send = async function answer(command) {
    const reply = commands[command.constructor.name];
    if (reply === undefined) {
      misses.push(`no stub for ${command.constructor.name}`);
      throw new Error(misses.at(-1));
    }
    return reply(command.input);
  };
}
