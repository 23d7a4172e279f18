import { AsyncLocalStorage } from 'node:async_hooks';
import { ITEM_PARTITIONS, tableDefinition, type IndexName, type ItemKind } from '../shared/dynamodb/table-definition';
import { OPERATIONS, type DataAccess, type FunctionName } from '../functions/table';

/**
 * Least privilege, checked on this machine: DynamoDB Local checks no rights, so the local server
 * runs each function as a caller with its declared rights (functions/<name>/operation.ts for an operation, functions/table.ts for the others: the same rights the
 * stack grants: infra/declared-rights.ts), and a request to DynamoDB outside them is answered as
 * DynamoDB answers a role without the right: 400 AccessDeniedException, naming the action, the
 * resource and, beyond AWS's words, the declaration and the key. The handler sees the SDK's own
 * error, so the request answers 500 and its log line says what right is missing.
 *
 * IAM's evaluation, for the statements the stack writes: a request is allowed when one statement
 * names its action, its resource (the table, or the index) and, for the table, every partition key
 * it touches matches one of the statement's patterns (ForAllValues:StringLike on
 * dynamodb:LeadingKeys; a request with no key would match vacuously, as in IAM, which is why a
 * declaration cannot grant Scan on items). A transaction is authorized item by item (PutItem,
 * UpdateItem, DeleteItem, ConditionCheckItem, GetItem). Where this reading is less sure than IAM's
 * (a Query whose key condition it cannot read), it refuses: a local false alarm costs a minute, a
 * request allowed here and refused in AWS costs a 500 in production.
 *
 * Only calls made inside `runAs` are checked: set-up code (npm start's, the tests', `npm run keys`)
 * runs with the rights of whoever runs it, as an administrator's credentials would.
 *
 * Which rights the requests let through used can be recorded (recordRightsUsed, off by default):
 * test/http/declared-rights.test.ts requires every declared right to be used by a case of the bench.
 */
export interface Caller {
  readonly functionName: FunctionName;
  readonly rights: readonly DataAccess[];
  /** The table the function's rights are on (its TABLE_NAME). */
  readonly tableName: string;
}

const current = new AsyncLocalStorage<Caller>();

/** Where a function's rights are declared: an operation's own declaration, or the support functions' table. */
export const declarationFileOf = (functionName: FunctionName): string =>
  functionName in OPERATIONS ? `functions/${functionName}/operation.ts` : 'functions/table.ts';

/** Runs `work` as the function: its DynamoDB calls, and those of what it leaves running, are checked. */
export function runAs<T>(caller: Caller, work: () => T): T {
  return current.run(caller, work);
}

/** One authorization IAM makes for a request: an action on a resource, with the partition keys it touches. */
export interface NeededAccess {
  readonly action: string;
  readonly tableName: string;
  readonly indexName?: string;
  /**
   * The partition keys; `unreadable` for a Query of the table whose key condition this check
   * cannot read (IAM always knows it, DynamoDB requiring the partition key's equality): refused,
   * rather than let through a request AWS might refuse.
   */
  readonly leadingKeys: readonly string[] | 'unreadable';
}

type AttributeValue = { S?: string; N?: string };
type Key = Record<string, AttributeValue>;
// biome-ignore lint/suspicious/noExplicitAny: the JSON body of any DynamoDB action, read by the fields each action has
type RequestBody = Record<string, any>;

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** What IAM authorizes for one DynamoDB request (its X-Amz-Target operation and JSON body). */
export function authorizationsOf(operation: string, body: RequestBody): NeededAccess[] {
  const partitionKey = tableDefinition.partitionKey.name;
  const keyOf = (key: Key | undefined) => (key?.[partitionKey]?.S === undefined ? [] : [key[partitionKey].S]);
  const tableOf = (name: unknown) => tableNameOf(name);
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: operation, tableName: tableOf(body.TableName), leadingKeys: keyOf(body.Key) }];
    case 'PutItem':
      return [{ action: operation, tableName: tableOf(body.TableName), leadingKeys: keyOf(body.Item) }];
    case 'Query':
      return [
        {
          action: operation,
          tableName: tableOf(body.TableName),
          ...(body.IndexName ? { indexName: body.IndexName } : {}),
          leadingKeys: queriedPartition(body),
        },
      ];
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return arrayOf<Record<string, RequestBody>>(body.TransactItems).flatMap((item) =>
        Object.entries(item).map(([kind, request]) => ({
          action: TRANSACT_ACTIONS[kind] ?? kind,
          tableName: tableOf(request?.TableName),
          leadingKeys: keyOf(request?.Key ?? request?.Item),
        })),
      );
    case 'BatchGetItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, { Keys?: Key[] }>).map(
        ([tableName, { Keys }]) => ({
          action: operation,
          tableName: tableOf(tableName),
          leadingKeys: arrayOf<Key>(Keys).flatMap(keyOf),
        }),
      );
    case 'BatchWriteItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, unknown>).map(([tableName, writes]) => ({
        action: operation,
        tableName: tableOf(tableName),
        leadingKeys: arrayOf<{ PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }>(writes).flatMap((write) =>
          keyOf(write.PutRequest?.Item ?? write.DeleteRequest?.Key),
        ),
      }));
    default:
      // Scan, DescribeTable and the rest: the table (or index), no partition key.
      return [
        {
          action: operation,
          tableName: tableOf(body.TableName),
          ...(body.IndexName ? { indexName: body.IndexName } : {}),
          leadingKeys: [],
        },
      ];
  }
}

const arrayOf = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** A table's name, given as its name or as its ARN (`arn:aws:dynamodb:…:table/<name>`). */
function tableNameOf(name: unknown): string {
  const text = typeof name === 'string' ? name : '';
  return /^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/([^/]+)$/.exec(text)?.[1] ?? text;
}

/** The partition a Query of this table reads, or `unreadable`. */
function queriedPartition(body: RequestBody): string[] | 'unreadable' {
  const index = tableDefinition.globalSecondaryIndexes.find((candidate) => candidate.indexName === body.IndexName);
  const value = queriedPartitionValue(body, (index ?? tableDefinition).partitionKey.name);
  return value === undefined ? 'unreadable' : [value.S ?? value.N ?? ''];
}

/**
 * The value a Query's key condition sets its (table's or index's) partition key equal to, however
 * the condition writes it (`pk = :v`, `:v = pk`, `(#pk) = :v`, or the legacy `KeyConditions`);
 * undefined when none of these says it.
 */
export function queriedPartitionValue(body: RequestBody, partitionKey: string): AttributeValue | undefined {
  const legacy = (
    body.KeyConditions as
      | Record<string, { ComparisonOperator?: string; AttributeValueList?: AttributeValue[] }>
      | undefined
  )?.[partitionKey];
  if (legacy?.ComparisonOperator === 'EQ' && legacy.AttributeValueList?.[0] !== undefined)
    return legacy.AttributeValueList[0];
  const names: Record<string, string> = body.ExpressionAttributeNames ?? {};
  const values: Record<string, AttributeValue> = body.ExpressionAttributeValues ?? {};
  const operand = (text: string) =>
    text
      .trim()
      .replace(/^\((.*)\)$/, '$1')
      .trim();
  const nameOf = (text: string) => (text.startsWith('#') ? names[text] : text);
  for (const condition of String(body.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const sides = operand(condition).split('=');
    if (sides.length !== 2) continue;
    const [left, right] = sides.map(operand) as [string, string];
    const [name, placeholder] = left.startsWith(':') ? [right, left] : [left, right];
    const value = values[placeholder];
    if (nameOf(name) === partitionKey && value !== undefined) return value;
  }
  return undefined;
}

/** IAM's StringLike pattern as a regular expression's source (flag `s`): `*` any text, `?` any one character, the rest as is (case counts). */
export function stringLikeSource(pattern: string): string {
  return `^${pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.')}$`;
}

/** The few patterns of ITEM_PARTITIONS, compiled once each. */
const compiled = new Map<string, RegExp>();

/** IAM's StringLike (stringLikeSource). */
export function stringLike(pattern: string, value: string): boolean {
  let expression = compiled.get(pattern);
  if (expression === undefined) {
    expression = new RegExp(stringLikeSource(pattern), 's');
    compiled.set(pattern, expression);
  }
  return expression.test(value);
}

/** Whether one of the rights allows this authorization, as IAM would evaluate the statements the stack writes. */
export function allows(rights: readonly DataAccess[], tableName: string, needed: NeededAccess): boolean {
  if (needed.tableName !== tableName) return false;
  return rights.some((right) => grants(right, needed));
}

/** Whether this one right (one statement) allows the authorization, on the caller's table. */
function grants(right: DataAccess, needed: NeededAccess): boolean {
  if (!(right.actions as readonly string[]).includes(needed.action)) return false;
  if ('index' in right) return needed.indexName === right.index;
  if (needed.indexName !== undefined || needed.leadingKeys === 'unreadable') return false;
  return needed.leadingKeys.every((key) => right.items.some((kind) => stringLike(ITEM_PARTITIONS[kind], key)));
}

/**
 * One unit of a declared right, as a test accounts for it: one action on one item kind, or on the
 * index. `{ actions: ['GetItem', 'PutItem'], items: ['pets', 'idempotencyRecords'] }` is four of them.
 */
export type RightPart = { readonly functionName: FunctionName; readonly action: string } & (
  | { readonly items: ItemKind }
  | { readonly index: IndexName }
);

/** A part of a right that allowed requests while a recorder listened: which right of the caller's (its place in them), and how many authorizations. */
export type RightUse = RightPart & {
  /** The right's place in the rights the function ran with: in its declaration when it runs with the declared ones. */
  readonly rightIndex: number;
  /** The authorizations it allowed (a key of a batch, an item of a transaction: one each). */
  readonly count: number;
};

/** Every part of a function's rights (RightPart), with each right's place in them. */
export function partsOf(
  functionName: FunctionName,
  rights: readonly DataAccess[],
): (RightPart & { readonly rightIndex: number })[] {
  return rights.flatMap((right, rightIndex) =>
    right.actions.flatMap((action): (RightPart & { readonly rightIndex: number })[] =>
      'index' in right
        ? [{ functionName, rightIndex, action, index: right.index }]
        : right.items.map((items) => ({ functionName, rightIndex, action, items })),
    ),
  );
}

export interface RightsRecorder {
  /** What was used since the recorder started (until it stopped), one entry per part of a right. */
  used(): RightUse[];
  stop(): void;
}

/** The recorders listening; none by default, and then the check records nothing. */
const recorders = new Set<Map<string, RightUse>>();

/**
 * Records, from now until `stop`, which declared rights allow the requests checked (any function's,
 * in this process): for each request let through, each of its authorizations is credited to the
 * first of the caller's rights that allows it (as the check finds it) and, on items, to the item
 * kind each of its partition keys matched. A refused request uses nothing. Off by default: with no
 * recorder the check does no more than it did.
 */
export function recordRightsUsed(): RightsRecorder {
  const uses = new Map<string, RightUse>();
  recorders.add(uses);
  return { used: () => [...uses.values()].map((use) => ({ ...use })), stop: () => void recorders.delete(uses) };
}

function recordUses(caller: Caller, authorizations: readonly NeededAccess[]): void {
  const parts: (RightPart & { readonly rightIndex: number })[] = [];
  for (const needed of authorizations) {
    const rightIndex = caller.rights.findIndex((right) => grants(right, needed));
    const right = caller.rights[rightIndex];
    if (right === undefined) continue;
    const base = { functionName: caller.functionName, rightIndex, action: needed.action };
    if ('index' in right) parts.push({ ...base, index: right.index });
    else if (needed.leadingKeys !== 'unreadable') {
      for (const key of needed.leadingKeys) {
        const kind = right.items.find((candidate) => stringLike(ITEM_PARTITIONS[candidate], key));
        if (kind !== undefined) parts.push({ ...base, items: kind });
      }
    }
  }
  for (const uses of recorders) {
    for (const part of parts) {
      const id = `${part.functionName}\u0000${part.rightIndex}\u0000${part.action}\u0000${'index' in part ? `index:${part.index}` : `items:${part.items}`}`;
      const known = uses.get(id);
      uses.set(id, { ...part, count: (known?.count ?? 0) + 1 });
    }
  }
}

/** AWS's words for the refusal, and then ours: which declaration, which key. */
export function accessDeniedMessage(caller: Caller, needed: NeededAccess, region: string): string {
  const resource = `arn:aws:dynamodb:${region}:000000000000:table/${needed.tableName}${needed.indexName === undefined ? '' : `/index/${needed.indexName}`}`;
  const on = needed.indexName === undefined ? `table ${needed.tableName}` : `index ${needed.indexName}`;
  const keys =
    needed.leadingKeys === 'unreadable'
      ? ', or the partition key of this Query could not be read (write its key condition as `pk = :value`)'
      : needed.leadingKeys.length === 0
        ? ''
        : ` for partition key ${needed.leadingKeys.map((key) => JSON.stringify(key)).join(', ')}`;
  return (
    `User: arn:aws:sts::000000000000:assumed-role/petstore-local-${caller.functionName}/${caller.functionName} is not authorized to perform: dynamodb:${needed.action} on resource: ${resource} because no identity-based policy allows the dynamodb:${needed.action} action` +
    ` (local rights check: the declaration of ${caller.functionName} in ${declarationFileOf(caller.functionName)} grants no dynamodb:${needed.action} on ${on}${keys})`
  );
}

interface HttpRequestLike {
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

interface ClientWithStack {
  readonly config: { region: string | (() => Promise<string>) };
  readonly middlewareStack: {
    addRelativeTo(
      middleware: unknown,
      options: { name: string; relation: 'after'; toMiddleware: string; override: boolean },
    ): void;
  };
}

const MIDDLEWARE_NAME = 'localRightsCheck';

/** The serialized request's JSON text (the SDK gives it as bytes or as a string). */
function textOf(body: unknown): string {
  if (body === undefined || body === null) return '{}';
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return body as string;
}

/**
 * Checks every request the client sends inside `runAs`, just before it would go on the wire: after
 * the deserializer, so that a refusal is read by the SDK exactly as DynamoDB's answer would be.
 * Idempotent: a client gets the check once, whoever asks.
 */
export function checkDeclaredRights(client: ClientWithStack): void {
  const middleware = (next: (args: { request: HttpRequestLike }) => Promise<unknown>) =>
    async function localRightsCheck(args: { request: HttpRequestLike }): Promise<unknown> {
      const caller = current.getStore();
      if (caller === undefined) return next(args);
      const target = args.request.headers['x-amz-target'] ?? args.request.headers['X-Amz-Target'] ?? '';
      const operation = target.split('.').pop() ?? '';
      let body: RequestBody;
      try {
        body = JSON.parse(textOf(args.request.body)) as RequestBody;
      } catch {
        // Not JSON: DynamoDB refuses it itself (a SerializationException), as it would in AWS.
        return next(args);
      }
      const authorizations = authorizationsOf(operation, body);
      const refused = authorizations.find((needed) => !allows(caller.rights, caller.tableName, needed));
      if (refused === undefined) {
        if (recorders.size > 0) recordUses(caller, authorizations);
        return next(args);
      }
      const region = typeof client.config.region === 'function' ? await client.config.region() : client.config.region;
      const answer = JSON.stringify({
        __type: 'com.amazon.coral.service#AccessDeniedException',
        Message: accessDeniedMessage(caller, refused, region),
      });
      return {
        response: {
          statusCode: 400,
          reason: 'Bad Request',
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amzn-requestid': 'LOCALRIGHTSCHECK',
            'content-length': String(Buffer.byteLength(answer)),
          },
          body: Buffer.from(answer),
        },
      };
    };
  client.middlewareStack.addRelativeTo(middleware, {
    name: MIDDLEWARE_NAME,
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
    override: true,
  });
}
