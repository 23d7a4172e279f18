import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { queriedPartitionValue } from '../../local/dynamodb-rights';
import type { Item, ReadConsistency } from './capacity-units';
import {
  partitionLabel,
  readCharge,
  writeCharges,
  type Capacity,
  type Charge,
  type IndexSchema,
  type TableSchema,
} from './partition-charges';

/**
 * A model of DynamoDB's per-partition limits, as a loopback proxy in front of DynamoDB Local
 * (which has no partitions). DynamoDB serves one partition key value, of the table or of an
 * index, at most about 3,000 read and 1,000 write units a second, however the table is billed;
 * the model keeps a token bucket of each per partition key value, at those rates divided by
 * `factor` (so that this machine is not what limits), holding one second of its rate.
 *
 * It charges what DynamoDB charges (test/support/capacity-units.ts, partition-charges.ts): a
 * request is admitted when every partition it touches has the units it will at least cost, and
 * refused otherwise, as DynamoDB refuses it (nothing done): `ProvisionedThroughputExceededException`,
 * or for a transaction `TransactionCanceledException` with `ThrottlingError` on the throttled
 * items. Once answered, it is charged what it really cost (a bucket may go below zero: the next
 * requests wait for it), as DynamoDB charges a read by the data it read.
 *
 * To know what a write costs, it reads the item before (and after an update) from DynamoDB Local
 * itself, with the caller's credentials (DynamoDB Local does not check signatures; the model is
 * for DynamoDB Local only). It charges GetItem, Query, PutItem, UpdateItem, DeleteItem and
 * TransactWriteItems, the requests the service makes; anything else passes uncharged and is
 * counted in `uncharged`. Not modelled: adaptive capacity splitting a partition by sort key (an
 * increasing key, such as pet ids, always writes to the end, so splits do not help it), the table's
 * burst capacity, a Query's FilterExpression (charged by what it returned, not what it read), and
 * a write racing another write of the same item between the model's reads of it (it could charge
 * an index move that did not happen: the service updates no item an index holds).
 *
 * Replica lag (`replicaLagMs`, off at 0, the default). DynamoDB Local is always consistent;
 * DynamoDB's eventually consistent reads may come from a replica that has not yet applied a write
 * (usually well under a second). With a lag set, the model notes each item (by its table key,
 * pk and sk) written through it by PutItem, UpdateItem or a transaction's Put or Update, and gives
 * each write a lag drawn at random between 0 and `replicaLagMs` (uniformly, or by `lagFraction`).
 * Until that lag has passed since DynamoDB Local answered the write, eventually consistent reads
 * do not show the item: a GetItem or a table's Query without `ConsistentRead: true`, and every
 * index Query (an index is never read strongly). A GetItem answers no item; a Query leaves it out
 * of `Items` and lowers `Count` and `ScannedCount` by what it left out, and keeps DynamoDB Local's
 * `LastEvaluatedKey`, which names the last item read, shown or not: a page whose last item is
 * hidden still says that the source may hold more, and the reader resumes after it, as it
 * resumes after a replica's page that lacked it (the hidden item is passed, as a replica would
 * pass it). Strongly consistent reads see every item at once. A new item is hidden from when its
 * write is sent (DynamoDB Local may apply it before answering); an item that already existed is
 * hidden from its successful write's answer until its lag has passed, not shown in its former
 * version as a replica would (the model keeps no former versions; nor deleted items: a delete
 * shows at once). Not modelled: items written straight to DynamoDB Local (shown at once), Scan,
 * BatchGetItem and TransactGetItems (they pass unchanged), a Query with `Select: COUNT` or a
 * projection without the table's keys (its items cannot be told apart: shown).
 */
export const DYNAMODB_PARTITION_LIMITS: Readonly<Record<Capacity, number>> = { read: 3_000, write: 1_000 };

export interface PartitionUse {
  readonly partition: string;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Requests refused because this partition had no units left. */
  readonly throttled: number;
}

export interface PartitionModel {
  readonly endpoint: string;
  /** DynamoDB's per-partition rates are divided by this; setting it refills every bucket. */
  factor: number;
  /** Units consumed and refusals per partition since the start or the last `reset`, busiest first. */
  use(): PartitionUse[];
  /** The partitions in the order they first refused a request. */
  throttledInOrder(): string[];
  /**
   * The longest a write stays out of eventually consistent reads (0: off). Setting it forgets
   * which items are still hidden (they show at once).
   */
  replicaLagMs: number;
  /** Requests of operations the model does not charge, by operation. */
  readonly uncharged: Map<string, number>;
  /**
   * Forgets the counts, and fills every bucket (`full`, the default), empties them (`empty`: no
   * burst, only the rate from now on) or leaves them as they are (`keep`).
   */
  reset(options?: { buckets?: 'full' | 'empty' | 'keep' }): void;
  close(): Promise<void>;
}

interface Bucket {
  tokens: number;
  at: number;
}

interface Tally {
  read: number;
  write: number;
  throttled: number;
}

interface RequestBody {
  TableName?: string;
  Key?: Item;
  Item?: Item;
  IndexName?: string;
  ConsistentRead?: boolean;
  TransactItems?: TransactItem[];
  [name: string]: unknown;
}

type TransactItem = { Put?: RequestBody; Update?: RequestBody; Delete?: RequestBody; ConditionCheck?: RequestBody };

const JSON_TYPE = 'application/x-amz-json-1.0';

export interface PartitionModelOptions {
  readonly factor: number;
  /** The longest replica lag (ms; 0, the default, is none): see the header. */
  readonly replicaLagMs?: number | undefined;
  /** Each write's lag as a share of `replicaLagMs`, in [0, 1]: uniform at random unless given (tests fix it). */
  readonly lagFraction?: (() => number) | undefined;
}

export async function startPartitionModel(target: string, options: PartitionModelOptions): Promise<PartitionModel> {
  const checked = (factor: number) => {
    if (!(factor >= 1)) throw new Error(`the partition model's factor must be 1 or more, got ${factor}`);
    return factor;
  };
  const checkedLag = (lag: number) => {
    if (!(lag >= 0) || !Number.isFinite(lag))
      throw new Error(`the partition model's replica lag must be 0 ms or more, got ${lag}`);
    return lag;
  };
  let factor = checked(options.factor);
  let replicaLagMs = checkedLag(options.replicaLagMs ?? 0);
  const lagFraction = options.lagFraction ?? Math.random;
  /**
   * When each item written through the model shows in eventually consistent reads (performance.now();
   * Infinity while its first write is on its way), by table and key; entries past are swept now and then.
   */
  const visibleAt = new Map<string, number>();
  const upstream = new URL(target);
  if (upstream.protocol !== 'http:')
    throw new Error(`the partition model sits in front of a DynamoDB Local over http://, not ${target}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const schemas = new Map<string, TableSchema>();
  const buckets = new Map<string, Bucket>();
  let tallies = new Map<string, Tally>();
  let throttleOrder: string[] = [];
  const uncharged = new Map<string, number>();

  /** Sends a JSON-protocol request to DynamoDB Local; resolves with its status, headers and body. */
  function send(
    operation: string,
    body: Buffer,
    headers: IncomingHttpHeaders,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: 'POST',
          path: '/',
          agent,
          headers: {
            ...headers,
            'x-amz-target': `DynamoDB_20120810.${operation}`,
            'content-type': JSON_TYPE,
            'content-length': String(body.length),
            host: upstream.host,
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }),
          );
          answer.on('error', reject);
        },
      );
      forward.setTimeout(30_000, () =>
        forward.destroy(new Error('DynamoDB Local did not answer the partition model within 30 s')),
      );
      forward.on('error', reject);
      forward.end(body);
    });
  }

  /** The model's own read of an item (not charged): what a write will replace. */
  async function currentItem(tableName: string, key: Item, headers: IncomingHttpHeaders): Promise<Item | undefined> {
    const answer = await send(
      'GetItem',
      Buffer.from(JSON.stringify({ TableName: tableName, Key: key, ConsistentRead: true })),
      credentialsOf(headers),
    );
    if (answer.status !== 200) return undefined;
    return (JSON.parse(answer.body.toString('utf8')) as { Item?: Item }).Item;
  }

  /** The table's key schema, read once (and again when a request names an index it did not have). */
  async function schemaOf(
    tableName: string | undefined,
    headers: IncomingHttpHeaders,
    indexName?: unknown,
  ): Promise<TableSchema | undefined> {
    if (tableName === undefined) return undefined;
    const known = schemas.get(tableName);
    if (
      known !== undefined &&
      (typeof indexName !== 'string' || known.indexes.some((index) => index.name === indexName))
    )
      return known;
    const answer = await send(
      'DescribeTable',
      Buffer.from(JSON.stringify({ TableName: tableName })),
      credentialsOf(headers),
    );
    if (answer.status !== 200) return undefined;
    const schema = toSchema(JSON.parse(answer.body.toString('utf8')) as DescribeTableAnswer);
    schemas.set(tableName, schema);
    return schema;
  }

  /** After reset('empty'), a bucket (even one not made yet) holds what it earned since. */
  let emptyFrom: number | undefined;

  function bucketOf(partition: string, capacity: Capacity, now: number): Bucket {
    // (Partitions are named by key value alone: the model serves one table at a time, as npm start
    // and the bench use it; two tables behind one model would share buckets of equal key values.)
    const rate = DYNAMODB_PARTITION_LIMITS[capacity] / factor;
    const name = `${capacity} ${partition}`;
    let bucket = buckets.get(name);
    if (bucket === undefined || (emptyFrom !== undefined && bucket.at < emptyFrom))
      bucket = emptyFrom === undefined ? { tokens: rate, at: now } : { tokens: 0, at: emptyFrom };
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    buckets.set(name, bucket);
    return bucket;
  }

  function tallyOf(partition: string): Tally {
    const tally = tallies.get(partition) ?? { read: 0, write: 0, throttled: 0 };
    tallies.set(partition, tally);
    return tally;
  }

  /** The charges' partitions that cannot pay now; empty when the request may go. */
  function short(charges: readonly Charge[]): Set<string> {
    const now = performance.now();
    const needed = new Map<string, number>();
    for (const { partition, capacity, units } of charges)
      needed.set(`${capacity} ${partition}`, (needed.get(`${capacity} ${partition}`) ?? 0) + units);
    const refused = new Set<string>();
    for (const { partition, capacity } of charges) {
      // A full bucket admits even a request dearer than one second of its rate (an item over 10 KB at 1/100).
      const needs = Math.min(needed.get(`${capacity} ${partition}`) ?? 0, DYNAMODB_PARTITION_LIMITS[capacity] / factor);
      if (bucketOf(partition, capacity, now).tokens < needs) refused.add(partition);
    }
    return refused;
  }

  function charge(charges: readonly Charge[], sign = 1): void {
    const now = performance.now();
    for (const { partition, capacity, units } of charges) {
      bucketOf(partition, capacity, now).tokens -= sign * units;
      tallyOf(partition)[capacity] += sign * units;
    }
  }

  function throttled(partitions: Iterable<string>): void {
    for (const partition of partitions) {
      tallyOf(partition).throttled += 1;
      if (!throttleOrder.includes(partition)) throttleOrder.push(partition);
    }
  }

  /** Admits and forwards one request, or refuses it; charges what it cost once answered. */
  async function handle(
    operation: string,
    raw: Buffer,
    headers: IncomingHttpHeaders,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    let body: RequestBody;
    try {
      body = JSON.parse(raw.toString('utf8')) as RequestBody;
    } catch {
      return send(operation, raw, headers);
    }
    const plan = await admissionOf(operation, body, headers);
    if (plan === undefined) {
      uncharged.set(operation, (uncharged.get(operation) ?? 0) + 1);
      return send(operation, raw, headers);
    }
    const refused = short(plan.estimate);
    if (refused.size > 0) {
      throttled(refused);
      return operation === 'TransactWriteItems'
        ? transactionThrottled(plan.itemPartitions ?? [], refused)
        : throughputExceeded();
    }
    charge(plan.estimate);
    const lagging = replicaLagMs > 0 ? (plan.writes ?? []) : [];
    const hiddenBefore = lagging.map(hideWhileWritten);
    const received = await send(operation, raw, headers);
    lagging.forEach((write, n) => {
      settleVisibility(write, received.status === 200, hiddenBefore[n]);
    });
    const answer = plan.shown === undefined || replicaLagMs === 0 ? received : plan.shown(received);
    const actual = await plan.settle(answer);
    charge(plan.estimate, -1);
    charge(actual);
    return answer;
  }

  /** A new item is hidden while its write is on its way (DynamoDB Local may apply it before it answers); returns what was noted before. */
  function hideWhileWritten({ item, existed }: WrittenItem): number | undefined {
    const before = visibleAt.get(item);
    if (!existed) visibleAt.set(item, Number.POSITIVE_INFINITY);
    return before;
  }

  /** Once answered: a write that was made shows after its lag; one refused leaves the item as it was. */
  function settleVisibility({ item, existed }: WrittenItem, written: boolean, before: number | undefined): void {
    const now = performance.now();
    if (written) visibleAt.set(item, now + Math.min(1, Math.max(0, lagFraction())) * replicaLagMs);
    else if (!existed && visibleAt.get(item) === Number.POSITIVE_INFINITY) {
      if (before === undefined) visibleAt.delete(item);
      else visibleAt.set(item, before);
    }
    if (visibleAt.size > 10_000) for (const [name, at] of visibleAt) if (at <= now) visibleAt.delete(name);
  }

  /** Whether an eventually consistent read shows this item now (an item without its table key: shown). */
  function shows(tableName: string, schema: TableSchema, item: Item): boolean {
    const at = visibleAt.get(itemName(tableName, schema, item));
    return at === undefined || at <= performance.now();
  }

  /** An eventually consistent answer without the items it does not show yet. */
  function withoutHidden(answer: Answer, tableName: string, schema: TableSchema): Answer {
    if (answer.status !== 200 || visibleAt.size === 0) return answer;
    const parsed = JSON.parse(answer.body.toString('utf8')) as {
      Item?: Item;
      Items?: Item[];
      Count?: number;
      ScannedCount?: number;
    };
    if (parsed.Item !== undefined) {
      if (shows(tableName, schema, parsed.Item)) return answer;
      delete parsed.Item;
    } else if (parsed.Items !== undefined) {
      const shown = parsed.Items.filter((item) => shows(tableName, schema, item));
      const hidden = parsed.Items.length - shown.length;
      if (hidden === 0) return answer;
      parsed.Items = shown;
      parsed.Count = shown.length;
      if (parsed.ScannedCount !== undefined) parsed.ScannedCount -= hidden;
      // LastEvaluatedKey stays: it names the last item read, hidden or not (see the header).
    } else return answer;
    return rewritten(answer, parsed);
  }

  interface Admission {
    /** What the request costs at least: checked and taken before it goes. */
    readonly estimate: Charge[];
    /** For a transaction: the partitions of each item, in order (its cancellation reasons). */
    readonly itemPartitions?: string[][];
    /** The items it puts or updates: what replica lag hides. */
    readonly writes?: WrittenItem[];
    /** An eventually consistent read's answer as a lagging replica gives it (with replica lag only). */
    shown?(answer: Answer): Answer;
    /** What it cost, once answered. */
    settle(answer: { status: number; body: Buffer }): Promise<Charge[]>;
  }

  /** One item's write: PutItem, UpdateItem, DeleteItem or ConditionCheck, alone or in a transaction. */
  interface ItemWrite {
    readonly operation: string;
    readonly body: RequestBody;
    readonly transactional: boolean;
  }

  interface WriteAdmission extends Admission {
    /** What it costs when its condition fails (or its transaction is cancelled): the item read. */
    readonly failed: Charge[];
  }

  async function admissionOf(
    operation: string,
    body: RequestBody,
    headers: IncomingHttpHeaders,
  ): Promise<Admission | undefined> {
    switch (operation) {
      case 'GetItem':
      case 'Query': {
        const schema = await schemaOf(body.TableName, headers, body.IndexName);
        if (schema === undefined) return undefined;
        const index = schema.indexes.find((candidate) => candidate.name === body.IndexName);
        const partition =
          operation === 'GetItem'
            ? partitionLabel(body.Key?.[schema.partitionKey])
            : partitionLabel(queriedPartitionValue(body, (index ?? schema).partitionKey), index?.name);
        // An index is read eventually consistent whatever the request says.
        const consistency: ReadConsistency =
          body.ConsistentRead === true && index === undefined ? 'strong' : 'eventual';
        const tableName = String(body.TableName);
        return {
          estimate: [readCharge(partition, [], consistency)],
          ...(consistency === 'eventual'
            ? { shown: (answer: Answer) => withoutHidden(answer, tableName, schema) }
            : {}),
          async settle(answer) {
            const parsed =
              answer.status === 200
                ? (JSON.parse(answer.body.toString('utf8')) as { Item?: Item; Items?: Item[] })
                : {};
            return [
              readCharge(partition, parsed.Items ?? (parsed.Item === undefined ? [] : [parsed.Item]), consistency),
            ];
          },
        };
      }
      case 'PutItem':
      case 'DeleteItem':
      case 'UpdateItem': {
        const schema = await schemaOf(body.TableName, headers);
        if (schema === undefined) return undefined;
        return writeAdmission(schema, { operation, body, transactional: false }, headers);
      }
      case 'TransactWriteItems': {
        const parts: WriteAdmission[] = [];
        for (const entry of body.TransactItems ?? []) {
          const [kind, item] = (Object.entries(entry)[0] ?? []) as [
            keyof TransactItem | undefined,
            RequestBody | undefined,
          ];
          const schema = await schemaOf(item?.TableName, headers);
          if (kind === undefined || item === undefined || schema === undefined) return undefined;
          const itemOperation =
            kind === 'Put'
              ? 'PutItem'
              : kind === 'Delete'
                ? 'DeleteItem'
                : kind === 'Update'
                  ? 'UpdateItem'
                  : 'ConditionCheck';
          parts.push(
            await writeAdmission(schema, { operation: itemOperation, body: item, transactional: true }, headers),
          );
        }
        return {
          estimate: parts.flatMap((part) => part.estimate),
          itemPartitions: parts.map((part) => part.estimate.map((charge) => charge.partition)),
          writes: parts.flatMap((part) => part.writes ?? []),
          async settle(answer) {
            // A cancelled transaction read its items and wrote nothing: each item is charged as a
            // failed condition (its read, doubled); a request DynamoDB refused outright, nothing.
            if (answer.status !== 200)
              return errorTypeOf(answer.body) === 'TransactionCanceledException'
                ? parts.flatMap((part) => part.failed)
                : [];
            return (await Promise.all(parts.map((part) => part.settle(answer)))).flat();
          },
        };
      }
      default:
        return undefined;
    }
  }

  async function writeAdmission(
    schema: TableSchema,
    { operation, body, transactional }: ItemWrite,
    headers: IncomingHttpHeaders,
  ): Promise<WriteAdmission> {
    const key = body.Key ?? keyOf(body.Item ?? {}, schema);
    const tableName = String(body.TableName);
    const before = await currentItem(tableName, key, headers);
    const after = operation === 'PutItem' ? body.Item : operation === 'DeleteItem' ? undefined : before;
    // A condition check reads the item and writes nothing, charged as a write of it.
    const failed = writeCharges(schema, key, { before, after: undefined }, { transactional, conditionFailed: true });
    const estimate =
      operation === 'ConditionCheck' ? failed : writeCharges(schema, key, { before, after }, { transactional });
    const puts = operation === 'PutItem' || operation === 'UpdateItem';
    return {
      estimate,
      failed,
      ...(puts ? { writes: [{ item: itemName(tableName, schema, key), existed: before !== undefined }] } : {}),
      async settle(answer) {
        if (operation === 'ConditionCheck') return estimate;
        // A failed condition read the item; any other refusal (a malformed request) did nothing.
        if (answer.status !== 200) return errorTypeOf(answer.body) === 'ConditionalCheckFailedException' ? failed : [];
        if (operation !== 'UpdateItem') return estimate;
        return writeCharges(
          schema,
          key,
          { before, after: await currentItem(tableName, key, headers) },
          { transactional },
        );
      },
    };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      handle(operation, Buffer.concat(chunks), req.headers).then(
        (answer) => {
          res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
          res.end(answer.body);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get factor() {
      return factor;
    },
    set factor(value: number) {
      factor = checked(value);
      buckets.clear();
      emptyFrom = undefined;
    },
    get replicaLagMs() {
      return replicaLagMs;
    },
    set replicaLagMs(value: number) {
      replicaLagMs = checkedLag(value);
      visibleAt.clear();
    },
    uncharged,
    use: () =>
      [...tallies]
        .map(([partition, tally]) => ({
          partition,
          readUnits: tally.read,
          writeUnits: tally.write,
          throttled: tally.throttled,
        }))
        .sort((a, b) => b.throttled - a.throttled || b.readUnits + b.writeUnits - (a.readUnits + a.writeUnits)),
    throttledInOrder: () => [...throttleOrder],
    reset({ buckets: refill = 'full' } = {}) {
      tallies = new Map();
      throttleOrder = [];
      uncharged.clear();
      if (refill === 'full') {
        buckets.clear();
        emptyFrom = undefined;
      }
      if (refill === 'empty') emptyFrom = performance.now();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** An item put or updated by a request: its name (table and key) and whether it was there before. */
interface WrittenItem {
  readonly item: string;
  readonly existed: boolean;
}

/** An item's table and table key, as one text (the key's values as they travel). */
function itemName(tableName: string, schema: KeySchemaNames, item: Item): string {
  return JSON.stringify([
    tableName,
    item[schema.partitionKey] ?? null,
    schema.sortKey === undefined ? null : (item[schema.sortKey] ?? null),
  ]);
}

type KeySchemaNames = Pick<TableSchema, 'partitionKey' | 'sortKey'>;

/** The answer with this body instead (its length and DynamoDB's CRC32 of it, when it had one, follow). */
function rewritten(answer: Answer, body: unknown): Answer {
  const text = Buffer.from(JSON.stringify(body));
  const headers: IncomingHttpHeaders = { ...answer.headers, 'content-length': String(text.length) };
  if (headers['x-amz-crc32'] !== undefined) headers['x-amz-crc32'] = String(crc32(text));
  return { ...answer, headers, body: text };
}

interface DescribeTableAnswer {
  Table: {
    KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
    GlobalSecondaryIndexes?: {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
      Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
    }[];
  };
}

function toSchema({ Table }: DescribeTableAnswer): TableSchema {
  const keys = (schema: { AttributeName: string; KeyType: string }[]) => ({
    partitionKey: schema.find((key) => key.KeyType === 'HASH')?.AttributeName ?? '',
    sortKey: schema.find((key) => key.KeyType === 'RANGE')?.AttributeName,
  });
  const indexes: IndexSchema[] = (Table.GlobalSecondaryIndexes ?? []).map((index) => ({
    name: index.IndexName,
    ...keys(index.KeySchema),
    projected: index.Projection?.ProjectionType === 'ALL' ? 'ALL' : (index.Projection?.NonKeyAttributes ?? []),
  }));
  return { ...keys(Table.KeySchema), indexes };
}

function keyOf(item: Item, schema: TableSchema): Item {
  const key: Item = {};
  for (const name of [schema.partitionKey, schema.sortKey])
    if (name !== undefined && item[name] !== undefined) key[name] = item[name];
  return key;
}

/** Only the caller's credentials (DynamoDB Local keeps a database per access key unless shared). */
function credentialsOf(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return headers.authorization === undefined ? {} : { authorization: headers.authorization };
}

function errorTypeOf(body: Buffer): string {
  try {
    return (
      String((JSON.parse(body.toString('utf8')) as { __type?: string }).__type ?? '')
        .split('#')
        .pop() ?? ''
    );
  } catch {
    return '';
  }
}

const answerOf = (type: string, fields: Record<string, unknown>) => ({
  status: 400,
  headers: { 'content-type': JSON_TYPE, 'x-amzn-errortype': type },
  body: Buffer.from(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...fields })),
});

/** DynamoDB's refusal of a request over a partition's rate: nothing was done. */
function throughputExceeded() {
  return answerOf('ProvisionedThroughputExceededException', {
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  });
}

/** A transaction refused: ThrottlingError on each item whose partition could not pay, None on the others. */
function transactionThrottled(itemPartitions: readonly string[][], refused: ReadonlySet<string>) {
  const reasons = itemPartitions.map((partitions) =>
    partitions.some((partition) => refused.has(partition))
      ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' }
      : { Code: 'None' },
  );
  return answerOf('TransactionCanceledException', {
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
    CancellationReasons: reasons,
  });
}
