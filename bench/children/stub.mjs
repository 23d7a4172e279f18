// The overhead run's DynamoDB: `send` of the SDK clients both sides use, answered at once from a
// table of answers by DynamoDB action and by the kind of item the request's partition key names
// (ITEM_PARTITIONS of shared/dynamodb/table-definition.ts, handed over by bench/run.ts: `*` stands
// for any text), or `index <name>` for a Query of an index. A request it has no answer for throws
// ("no stub for UpdateItem on pets"): a new operation's requests need answers here, never a
// default. Every answer is built once, in both forms (plain items for the document client, which
// only our authorizer uses; attribute values for our operations and the baseline): before timing
// starts, or for an answer that depends on the request (a pet by its key; a shard's page of pets,
// by its partition, lower bound and Limit, as DynamoDB pages it) at the first such request, in the
// warm-up, and kept. The kind of each key is looked up once: the stub costs both sides the same few
// nanoseconds, it converts nothing per call. (Until issue 26 our operations used the document
// client too, so the stub spared them its marshalling, which the baseline's hand-written attribute
// values paid: their overhead now includes writing and reading their items.)
import { createHash } from 'node:crypto';
import { BENCH_LIMITS } from './events.mjs';

const pad = (id) => String(id).padStart(16, '0');
/** The stub's pets: ids 1 to STUB_PETS, each in shard `id mod shards`, all available: more than any page in each shard. */
const STUB_PETS = 1_024;
const fieldsOf = (id) => ({ id, name: `Pet ${id}`, categoryId: 3 });
/** A pet of the sharded layout (`pk` the shard's partition, as asked), and its status index projection. */
const shardedPet = (pk, id, shards) => ({
  pk,
  sk: pad(id),
  ...fieldsOf(id),
  statusShard: `available#${id % shards}`,
  listShard: `pets#${id % shards}`,
  createdAt: '2026-11-22T00:00:00.000Z',
  nonce: 'stub',
});
const projectedShardedPet = (pk, id, shards) => ({
  pk,
  sk: pad(id),
  ...fieldsOf(id),
  statusShard: `available#${id % shards}`,
});

/** The shard a partition or index key names: `PET#3`, `available#3` → 3; undefined for any other text. */
const shardNamed = (value, shards) => {
  const shard = Number(/#([0-9]+)$/.exec(String(value))?.[1]);
  return Number.isInteger(shard) && shard < shards ? shard : undefined;
};

/** The ids above `after` in ascending order, of those ≡ `shard` mod `shards`, at most `limit` of them (undefined: all). */
function idsOf(shard, shards, after, limit) {
  const ids = [];
  const from = Math.max(0, Math.floor(after)) + 1;
  for (
    let id = from + ((((shard - from) % shards) + shards) % shards);
    id <= STUB_PETS && (limit === undefined || ids.length < limit);
    id += shards
  )
    ids.push(id);
  return ids;
}

/**
 * A Query's page as DynamoDB gives it: the items in ascending id above the key condition's lower
 * bound, at most Limit, with LastEvaluatedKey (the last item's keys) when it stopped at Limit.
 * (Its upper bound is not read: every stub pet is older than any listing's newest id.)
 */
function pageOf(ids, limit, itemOf, keyOf) {
  const Items = ids.map(itemOf);
  const last = Items.at(-1);
  return limit !== undefined && last !== undefined && Items.length === limit
    ? { Items, LastEvaluatedKey: keyOf(last) }
    : { Items };
}

/** A GetItem answer that depends on the sort key: `bySortKey[sk]`, else `otherwise` (a key item's sort key is its hash, as its partition's). */
const bySortKey = (replies, otherwise) => ({ bySortKey: replies, otherwise });
/**
 * An answer built from the request: `build({ pk, sk, after, limit })` (`pk` the partition or index
 * key's value; a Query's lower bound and Limit), once per distinct request, in each form.
 */
const built = (build) => ({ build });

/** The answers in the document client's form, by action and item kind (or `index <name>` for a Query of an index). */
function answersFor(benchKey, shards) {
  // The registry knows the bench key and nothing else (the authorizer's "no valid key" case).
  const benchKeyHash = createHash('sha256').update(benchKey).digest('hex');
  const keyItem = {
    Item: {
      pk: `APIKEY#${benchKeyHash}`,
      sk: benchKeyHash,
      registry: 'keys',
      plan: 'enterprise',
      limits: BENCH_LIMITS,
      createdAt: '2026-11-22T00:00:00.000Z',
    },
  };
  const counters = { Attributes: { minuteCount: 1, dayCount: 1 } };
  /** A pet's id from its sort key; undefined for any other text. */
  const idOf = (sk) => (/^[0-9]{16}$/.test(String(sk)) && Number(sk) >= 1 ? Number(sk) : undefined);
  const tableKey = ({ pk, sk }) => ({ pk, sk });
  /** A shard of a status index: every stub pet is available, another status has none. */
  const byStatus = built(({ pk, after, limit }) => {
    const shard = shardNamed(pk, shards);
    return shard === undefined || !String(pk).startsWith('available#')
      ? { Items: [] }
      : pageOf(
          idsOf(shard, shards, after, limit),
          limit,
          (id) => projectedShardedPet(`PET#${shard}`, id, shards),
          ({ pk: p, sk, statusShard, id }) => ({ pk: p, sk, statusShard, id }),
        );
  });
  /** The pet a key names, under `field` (GetItem's Item); none in another shard's partition. */
  const petAt = (field) => ({
    pets: built(({ pk, sk }) => {
      const id = idOf(sk);
      return id !== undefined && shardNamed(pk, shards) === id % shards ? { [field]: shardedPet(pk, id, shards) } : {};
    }),
  });
  return {
    GetItem: {
      // Every pet id is found, in its shard (in another shard's partition, none is): a case whose
      // setup makes a fresh pet per request (bench/setups.ts) sends its placeholder id here, found
      // every time, as its fresh pet would be (test/bench/cases.test.ts refuses a declared right the
      // stub has no answer for: a delete of pets would add its DeleteItem here).
      ...petAt('Item'),
      keyRegistry: bySortKey({ [benchKeyHash]: keyItem }, {}),
      // An idempotency record is never found: every bench create with a key is its key's first use.
      idempotencyRecords: {},
      // The release check's pets: the bench sends a customer's key, which never reaches them.
      releasePets: {},
    },
    UpdateItem: { keyCounters: counters, addressCounters: counters },
    Query: {
      // A shard's pets.
      pets: built(({ pk, after, limit }) => {
        const shard = shardNamed(pk, shards);
        return shard === undefined
          ? { Items: [] }
          : pageOf(idsOf(shard, shards, after, limit), limit, (id) => shardedPet(pk, id, shards), tableKey);
      }),
      // No release pet (a customer's key never reaches them).
      releasePets: { Items: [] },
      'index petsByStatus': byStatus,
      // The same again: status pages read the two in turn.
      'index petsByStatusAgain': byStatus,
      'index petsById': built(({ pk, after, limit }) => {
        const shard = shardNamed(pk, shards);
        return shard === undefined || !String(pk).startsWith('pets#')
          ? { Items: [] }
          : pageOf(
              idsOf(shard, shards, after, limit),
              limit,
              (id) => ({ ...projectedShardedPet(`PET#${shard}`, id, shards), listShard: pk }),
              ({ pk: p, sk, listShard, id }) => ({ pk: p, sk, listShard, id }),
            );
      }),
    },
    PutItem: { pets: {}, releasePets: {}, idempotencyRecords: {} },
  };
}

const attributes = (item) =>
  Object.fromEntries(
    Object.entries(item).map(([k, v]) => [
      k,
      typeof v === 'number' ? { N: String(v) } : typeof v === 'string' ? { S: v } : { M: attributes(v) },
    ]),
  );
const mapValues = (object, f) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v)]));
function marshalled(reply) {
  if (reply.bySortKey !== undefined)
    return bySortKey(mapValues(reply.bySortKey, marshalled), marshalled(reply.otherwise));
  if (reply.build !== undefined) return built((request) => marshalled(reply.build(request)));
  return {
    ...(reply.Item === undefined ? {} : { Item: attributes(reply.Item) }),
    ...(reply.Attributes === undefined ? {} : { Attributes: attributes(reply.Attributes) }),
    ...(reply.Items === undefined ? {} : { Items: reply.Items.map(attributes) }),
    ...(reply.LastEvaluatedKey === undefined ? {} : { LastEvaluatedKey: attributes(reply.LastEvaluatedKey) }),
  };
}

const TRANSACTION_ACTIONS = {
  Put: ['PutItem', 'Item'],
  Update: ['UpdateItem', 'Key'],
  Delete: ['DeleteItem', 'Key'],
  ConditionCheck: ['ConditionCheckItem', 'Key'],
};

/**
 * The stub's commands for each client, by command class name.
 * `table`: `{ partitionKey, sortKey, partitions: { kind: regular expression source }, petShards }`
 * (IAM's StringLike patterns of ITEM_PARTITIONS, as local/dynamodb-rights.ts's stringLikeSource
 * writes them; how many shards pets are spread over, PET_SHARDS).
 */
export function dynamoDbStub({ table, benchKey }) {
  const { partitionKey, sortKey } = table;
  const plain = answersFor(benchKey, table.petShards);
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
  /** The reply for this request: by its sort key, or built for it (once: kept by the reply it was built for). */
  const resolved = (reply, { pk, sk, after, limit }) => {
    if (reply.bySortKey !== undefined) return reply.bySortKey[sk] ?? reply.otherwise;
    if (reply.build === undefined) return reply;
    reply.built ??= new Map();
    const request = `${pk}\n${sk}\n${after}\n${limit}`;
    let answer = reply.built.get(request);
    if (answer === undefined) {
      answer = reply.build({ pk, sk, after, limit });
      reply.built.set(request, answer);
    }
    return answer;
  };
  /** `request`: the item's partition key (`key`), its sort key, and a Query's lower bound (`after`) and Limit. */
  const answer = (answers, action, request) => {
    const { key, sk, after, limit } = request;
    const kind = kindOf(key);
    const reply = kind === null ? undefined : answers[action]?.[kind];
    if (reply === undefined) throw miss(`no stub for ${action} on ${kind ?? `the key ${JSON.stringify(key)}`}`);
    return resolved(reply, { pk: key, sk, after, limit });
  };
  // A Query's key condition, parsed once per expression: its `name = :value` parts, and its sort
  // key's lower bound (`BETWEEN :first AND`, `>= :first`: above first - 1; `> :after`), if any.
  const conditions = new Map();
  const conditionOf = (expression) => {
    let found = conditions.get(expression);
    if (found === undefined) {
      const text = String(expression ?? '');
      const equalities = [];
      for (const condition of text.split(/\s+AND\s+/i)) {
        const equal = /^\s*\(?\s*(#?\w+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(condition);
        if (equal !== null) equalities.push([equal[1], equal[2]]);
      }
      const from = /\bBETWEEN\s+(:\w+)\s+AND\s/i.exec(text) ?? />=\s*(:\w+)/.exec(text);
      const above = from === null ? />(?!=)\s*(:\w+)/.exec(text) : null;
      found = { equalities, lowerBound: from !== null ? [from[1], 1] : above !== null ? [above[1], 0] : undefined };
      conditions.set(expression, found);
    }
    return found;
  };
  const query = (answers, input, plainOf) => {
    const { equalities, lowerBound } = conditionOf(input.KeyConditionExpression);
    const after =
      lowerBound === undefined ? 0 : Number(plainOf(input.ExpressionAttributeValues?.[lowerBound[0]])) - lowerBound[1];
    if (input.IndexName !== undefined) {
      const reply = answers.Query?.[`index ${input.IndexName}`];
      if (reply === undefined) throw miss(`no stub for Query on index ${input.IndexName}`);
      // An index's partition: the key condition's equality (the index's key, whatever its name).
      const on = equalities[0];
      return resolved(reply, {
        pk: on === undefined ? undefined : plainOf(input.ExpressionAttributeValues?.[on[1]]),
        after,
        limit: input.Limit,
      });
    }
    const on = equalities.find(
      ([name]) => (name.startsWith('#') ? input.ExpressionAttributeNames?.[name] : name) === partitionKey,
    );
    return answer(answers, 'Query', {
      key: on === undefined ? undefined : plainOf(input.ExpressionAttributeValues?.[on[1]]),
      after,
      limit: input.Limit,
    });
  };
  const transaction = (answers, items, plainOf) => {
    for (const item of items) {
      for (const request in item) {
        const [action, field] = TRANSACTION_ACTIONS[request] ?? [];
        if (action === undefined) throw miss(`no stub for ${request} in a transaction`);
        answer(answers, action, { key: plainOf(item[request][field]?.[partitionKey]) });
      }
    }
    return {};
  };
  const s = (value) => value?.S ?? value?.N;
  return {
    misses,
    /** For DynamoDBDocumentClient (our authorizer's key registry): plain items. */
    documentClient: {
      GetCommand: (input) => answer(plain, 'GetItem', { key: input.Key[partitionKey], sk: input.Key[sortKey] }),
      UpdateCommand: (input) => answer(plain, 'UpdateItem', { key: input.Key[partitionKey], sk: input.Key[sortKey] }),
      DeleteCommand: (input) => answer(plain, 'DeleteItem', { key: input.Key[partitionKey], sk: input.Key[sortKey] }),
      PutCommand: (input) => answer(plain, 'PutItem', { key: input.Item[partitionKey], sk: input.Item[sortKey] }),
      QueryCommand: (input) => query(plain, input, (value) => value),
      TransactWriteCommand: (input) => transaction(plain, input.TransactItems, (value) => value),
    },
    /** For DynamoDBClient (our operations and the baseline): attribute values. */
    client: {
      GetItemCommand: (input) =>
        answer(attributeValues, 'GetItem', { key: s(input.Key[partitionKey]), sk: s(input.Key[sortKey]) }),
      UpdateItemCommand: (input) =>
        answer(attributeValues, 'UpdateItem', { key: s(input.Key[partitionKey]), sk: s(input.Key[sortKey]) }),
      DeleteItemCommand: (input) =>
        answer(attributeValues, 'DeleteItem', { key: s(input.Key[partitionKey]), sk: s(input.Key[sortKey]) }),
      PutItemCommand: (input) =>
        answer(attributeValues, 'PutItem', { key: s(input.Item[partitionKey]), sk: s(input.Item[sortKey]) }),
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
