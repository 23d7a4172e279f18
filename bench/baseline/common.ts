import { ConditionalCheckFailedException, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
// The service's clock, as ours reads it (so that a test can pin both).
import { isoTimestamp, now } from '../../shared/clock';
import { SHARD_THRESHOLD_PER_MINUTE } from '../../shared/limits/counter-shards';
import type { Pet } from '../../shared/pets/schema';

/**
 * The framework-free baseline of `npm run bench`: what a careful hand-written handler does for the
 * same requests, with the same DynamoDB requests as ours (the caller from the authorizer's context,
 * one conditional counter update per request, the same reads and writes), the same status codes,
 * headers and log line fields, but no middleware, no zod, and JSON written by hand. Not deployed.
 */
const endpoint = process.env.DYNAMODB_ENDPOINT;
export const TABLE = process.env.TABLE_NAME ?? 'petstore-local';
export const db = new DynamoDBClient({
  region: process.env.AWS_REGION ?? 'eu-west-1',
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
  ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
});

interface Caller {
  keyId: string;
  plan: string;
  perMinute: number;
  perDay: number;
  /** The RateLimit-Policy header of the caller's limits, made once per key lookup. */
  policy: string;
  /** The release key's caller: its pets in the releases' partitions, its requests out of the metrics (a 5XX by version alone). */
  release: boolean;
}

const policyOf = (perMinute: number, perDay: number): string =>
  `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`;
const ADDRESS_POLICY = policyOf(60, 1000);
const policies = new Map<string, string>();
const KEY_ID = /^[0-9a-f]{16}$/;
const COUNT = /^[1-9][0-9]{0,15}$/;

/** The caller the authorizer allowed, from `requestContext.authorizer` (values as strings). */
function caller(context: Record<string, unknown> | null | undefined): Caller | undefined {
  if (context === null || context === undefined || context.keyId === undefined) return undefined;
  const {
    keyId = '',
    plan = '',
    perMinute = '',
    perDay = '',
    petSpace,
  } = context as Record<string, string | undefined>;
  if (
    !KEY_ID.test(keyId) ||
    !COUNT.test(perMinute) ||
    !COUNT.test(perDay) ||
    (plan !== 'free' && plan !== 'pro' && plan !== 'business' && plan !== 'enterprise') ||
    (petSpace !== undefined && petSpace !== 'releases')
  ) {
    throw new Error('malformed authorizer context');
  }
  const policyKey = `${perMinute}/${perDay}`;
  let policy = policies.get(policyKey);
  if (policy === undefined) {
    policy = policyOf(Number(perMinute), Number(perDay));
    policies.set(policyKey, policy);
  }
  return { keyId, plan, perMinute: Number(perMinute), perDay: Number(perDay), policy, release: petSpace !== undefined };
}

export interface Count {
  ok: boolean;
  window: 'minute' | 'day';
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** The same conditional counter update as ours in the common case; opening a new minute or day on a miss. */
export async function count(subject: string, perMinute: number, perDay: number): Promise<Count> {
  // As ours, a key above one partition's writes would be counted on shards: no bench key is.
  if (perMinute > SHARD_THRESHOLD_PER_MINUTE) throw new Error('the baseline counts keys on one item only');
  const nowMs = now();
  const minute = Math.floor(nowMs / 60_000);
  const day = Math.floor(nowMs / 86_400_000);
  const key = { pk: { S: `RATE#${subject}` }, sk: { S: 'counters' } };
  const expiresAt = { N: String(Math.ceil(((day + 1) * 86_400_000 + 86_400_000) / 1000)) };
  let minuteCount: number;
  let dayCount: number;
  try {
    const { Attributes } = await db.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: key,
        UpdateExpression: 'ADD minuteCount :one, dayCount :one SET expiresAt = :expiresAt',
        ConditionExpression:
          '#minute = :minute AND #day = :day AND minuteCount < :minuteLimit AND dayCount < :dayLimit AND (attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now) AND attribute_not_exists(shards)',
        ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':minute': { N: String(minute) },
          ':day': { N: String(day) },
          ':minuteLimit': { N: String(perMinute) },
          ':dayLimit': { N: String(perDay) },
          ':now': { N: String(nowMs) },
          ':expiresAt': expiresAt,
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    minuteCount = Number(Attributes?.minuteCount?.N);
    dayCount = Number(Attributes?.dayCount?.N);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const old = error.Item ?? {};
    const sameMinute = Number(old.minute?.N) === minute;
    const sameDay = Number(old.day?.N) === day;
    minuteCount = sameMinute ? Number(old.minuteCount?.N) : 0;
    dayCount = sameDay ? Number(old.dayCount?.N) : 0;
    if (minuteCount >= perMinute || dayCount >= perDay)
      return toCount(false, minute, { perMinute, perDay, minuteCount, dayCount });
    await db.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: key,
        UpdateExpression:
          'SET #minute = :minute, minuteCount = :mc, #day = :day, dayCount = :dc, expiresAt = :expiresAt REMOVE shards',
        ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
        ExpressionAttributeValues: {
          ':minute': { N: String(minute) },
          ':mc': { N: '1' },
          ':day': { N: String(day) },
          ':dc': { N: String(dayCount + 1) },
          ':expiresAt': expiresAt,
        },
      }),
    );
    minuteCount = 1;
    dayCount += 1;
  }
  return toCount(true, minute, { perMinute, perDay, minuteCount, dayCount });
}

/** A subject's limits and its counts in the current minute and day. */
interface Tally {
  readonly perMinute: number;
  readonly perDay: number;
  readonly minuteCount: number;
  readonly dayCount: number;
}

/** The count's answer in the window closest to running out; `minute`: the current minute's number. */
function toCount(ok: boolean, minute: number, { perMinute, perDay, minuteCount, dayCount }: Tally): Count {
  const minuteLeft = Math.max(0, perMinute - minuteCount);
  const dayLeft = Math.max(0, perDay - dayCount);
  return dayLeft <= minuteLeft
    ? { ok, window: 'day', limit: perDay, remaining: dayLeft, resetSeconds: (Math.floor(minute / 1440) + 1) * 86_400 }
    : { ok, window: 'minute', limit: perMinute, remaining: minuteLeft, resetSeconds: (minute + 1) * 60 };
}

export interface Context {
  requestId: string;
  /** `listPets GET /v1/pets`: the operation and route fields of the log line, as JSON. */
  logFields: string;
  startedAt: number;
  caller: Caller | undefined;
  sentAuthorization: boolean;
  /** Undefined without a caller: nothing is counted then. */
  counted: Promise<Count> | undefined;
}

/** Authorization headers sent, in any spelling. */
export function authorizationCount(multiValueHeaders: Record<string, string[] | undefined> | null | undefined): number {
  let count = 0;
  for (const name in multiValueHeaders ?? {})
    if (name.length === 13 && name.toLowerCase() === 'authorization') count += multiValueHeaders?.[name]?.length ?? 0;
  return count;
}

/** Who calls and the counting started; the caller answers by `respond`. */
export async function begin(event: APIGatewayProxyEvent, operation: string, route: string): Promise<Context> {
  const startedAt = performance.now();
  // Two Authorization headers, in any spelling, are refused: a cached authorizer answer may have let them through.
  const who = authorizationCount(event.multiValueHeaders) > 1 ? undefined : caller(event.requestContext?.authorizer);
  const counted = who ? count(`key#${who.keyId}`, who.perMinute, who.perDay) : undefined;
  counted?.catch(() => {});
  const logFields = `"operation":"${operation}","route":"${route}"`;
  const sentAuthorization = (event.headers?.Authorization ?? event.headers?.authorization) !== undefined;
  return {
    requestId: event.requestContext?.requestId ?? '',
    logFields,
    startedAt,
    caller: who,
    counted,
    sentAuthorization,
  };
}

// The same embedded metrics as ours, their directive written out by hand.
const EMF_METRICS =
  '[{"Name":"Requests","Unit":"Count"},{"Name":"Latency","Unit":"Milliseconds"},{"Name":"Status2xx","Unit":"Count"},{"Name":"Status4xx","Unit":"Count"},{"Name":"Status5xx","Unit":"Count"},{"Name":"RateLimited","Unit":"Count"},{"Name":"KeySuspended","Unit":"Count"}]';
const NAMESPACE = process.env.METRICS_NAMESPACE || 'PetStore/local';
// The release gate's, on 5XX lines only: the 5XX answers by operation and the version that ran.
const EMF_BY_VERSION = `{"Namespace":"${NAMESPACE}","Dimensions":[["operation","version"]],"Metrics":[{"Name":"Status5xx","Unit":"Count"}]}`;
const EMF_WITH_PLAN = `{"Namespace":"${NAMESPACE}","Dimensions":[["operation","plan"],["operation"]],"Metrics":${EMF_METRICS}}`;
const EMF_WITHOUT_PLAN = `{"Namespace":"${NAMESPACE}","Dimensions":[["operation"]],"Metrics":${EMF_METRICS}}`;
const VERSION = `,"version":${JSON.stringify(process.env.AWS_LAMBDA_FUNCTION_VERSION || '$LATEST')}`;
/** The release key's request: no metric, but a 5XX's by operation and version. */
const releaseMetrics = (statusClass: number): string =>
  statusClass === 5
    ? `${VERSION},"Status5xx":1,"_aws":{"Timestamp":${Date.now()},"CloudWatchMetrics":[${EMF_BY_VERSION}]}`
    : '';

/** An answer's status, body and headers of its own; `code`: the error code its log line holds. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string> | undefined;
  readonly code?: string | undefined;
}

/** The same answer and log line as ours: rate-limit headers (both forms), request id, no caching. */
export function respond(
  context: Context,
  count: Count | undefined,
  { status, body, headers = {}, code }: Answer,
): APIGatewayProxyResult {
  const nowMs = now();
  const rate = count ?? {
    window: 'minute',
    limit: context.caller?.perMinute ?? 60,
    remaining: 0,
    resetSeconds: (Math.floor(nowMs / 60_000) + 1) * 60,
  };
  const who = context.caller;
  const durationMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  const statusClass = Math.floor(status / 100);
  process.stdout.write(
    `{"time":"${isoTimestamp(Date.now())}","level":"${status >= 500 ? 'error' : 'info'}","msg":"request","requestId":${JSON.stringify(context.requestId)},${context.logFields},"status":${status},"durationMs":${durationMs}${
      who ? `,"keyId":"${who.keyId}","plan":"${who.plan}"` : ''
    }${code ? `,"code":"${code}"` : ''}${who?.release === true ? releaseMetrics(statusClass) : `${statusClass === 5 ? VERSION : ''},"Requests":1,"Latency":${durationMs},"Status2xx":${statusClass === 2 ? 1 : 0},"Status4xx":${statusClass === 4 ? 1 : 0},"Status5xx":${statusClass === 5 ? 1 : 0},"RateLimited":${code === 'rate_limited' ? 1 : 0},"KeySuspended":${code === 'key_suspended' ? 1 : 0},"_aws":{"Timestamp":${Date.now()},"CloudWatchMetrics":[${who ? EMF_WITH_PLAN : EMF_WITHOUT_PLAN}${statusClass === 5 ? `,${EMF_BY_VERSION}` : ''}]}`}}\n`,
  );
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'application/json',
      ...headers,
      'X-RateLimit-Limit': String(rate.limit),
      'X-RateLimit-Remaining': String(rate.remaining),
      'X-RateLimit-Reset': String(rate.resetSeconds),
      'RateLimit-Policy': who?.policy ?? ADDRESS_POLICY,
      RateLimit: `"${rate.window}";r=${rate.remaining};t=${Math.max(0, rate.resetSeconds - Math.ceil(nowMs / 1000))}`,
      'Cache-Control': 'no-store',
      'X-Request-Id': context.requestId,
      'X-Content-Type-Options': 'nosniff',
    },
    body,
  };
}

/** A bodiless answer (204), as our stack's `noContent()`: the same headers and log line, but no body and no Content-Type. */
export function noContent(
  context: Context,
  count: Count | undefined,
  headers?: Record<string, string>,
): APIGatewayProxyResult {
  const { headers: withType, ...answer } = respond(context, count, { status: 204, body: '', headers });
  // A copy without it (no `delete`, which would leave the headers object slow to read).
  const { 'Content-Type': _, ...bodiless } = withType as Record<string, string>;
  return { ...answer, headers: bodiless };
}

/** An error answer: its status, code and message, its own headers, and (a 400's) the failing field. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Record<string, string> | undefined;
  readonly detail?: { path: string; message: string } | undefined;
}

/** An Error body; a 400 names its failing field in `details` too. */
export function error(
  context: Context,
  count: Count | undefined,
  { status, code, message, headers, detail }: ErrorAnswer,
): APIGatewayProxyResult {
  const details = detail ? `,"details":[{"path":"${detail.path}","message":${JSON.stringify(detail.message)}}]` : '';
  return respond(context, count, {
    status,
    body: `{"code":"${code}","message":${JSON.stringify(message)},"status":${status}${details}}`,
    headers,
    code,
  });
}

/** Waits for the count; a refusal or a missing caller answers here. */
export async function admitted(context: Context): Promise<{ count: Count; refusal?: APIGatewayProxyResult }> {
  if (context.counted === undefined) {
    const unauthorized = { 'WWW-Authenticate': event401Challenge(context) };
    return {
      count: undefined as never,
      refusal: error(context, undefined, {
        status: 401,
        code: 'unauthorized',
        message: 'An API key is required.',
        headers: unauthorized,
      }),
    };
  }
  let counted: Count;
  try {
    counted = await context.counted;
  } catch {
    return {
      count: undefined as never,
      refusal: error(context, undefined, {
        status: 503,
        code: 'service_unavailable',
        message: 'The service is temporarily unavailable.',
        headers: {
          'Retry-After': '1',
        },
      }),
    };
  }
  if (!counted.ok) {
    return {
      count: counted,
      refusal: error(context, counted, {
        status: 429,
        code: 'rate_limited',
        message: 'Too many requests.',
        headers: {
          'Retry-After': String(Math.max(1, counted.resetSeconds - Math.floor(now() / 1000))),
        },
      }),
    };
  }
  return { count: counted };
}

function event401Challenge(context: Context): string {
  return context.sentAuthorization ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"';
}

/** Without a caller (not through the authorizer) nothing is read, written or counted: 401. */
export async function refusedWithoutKey(context: Context): Promise<APIGatewayProxyResult | undefined> {
  return context.caller === undefined ? (await admitted(context)).refusal : undefined;
}

export const pad = (id: number): string => String(id).padStart(16, '0');

/** How many partitions pets are spread over, as ours: `PET#<id mod 8>`; `statusShard` = `<status>#<id mod 8>`. */
export const PET_SHARDS = 8;
export const petPartition = (id: number, release = false): string =>
  `${release ? 'RELEASES#' : ''}PET#${id % PET_SHARDS}`;
/** The index keys' part after their first: `pets#<here><n>`, `<status>#<here><n>`. */
export const indexInfix = (release: boolean): string => (release ? 'releases#' : '');
/** A release pet's TTL: a day after it was written. */
export const RELEASE_PET_SECONDS = 86_400;

type PetItem = Record<string, { S?: string; N?: string }>;

/** A pet read back, as ours: `status` (a record's map) or the part of `statusShard` before `#`. */
export function petOf(item: PetItem): Pet {
  const status = item.status?.S ?? item.statusShard?.S?.split('#', 1)[0];
  return {
    id: Number(item.id?.N),
    name: item.name?.S as string,
    categoryId: Number(item.categoryId?.N),
    status: status as Pet['status'],
  };
}

export function petJson(pet: Pet): string {
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`;
}
