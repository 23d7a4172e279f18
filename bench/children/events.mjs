// API Gateway REST proxy events for the bench's cases, the same for ours and the baseline. What
// each case sends is declared in bench/cases.ts (an event spec, plain JSON, passed to the children);
// this only turns a spec into an event, with what must differ per request (ids, keys, names).
import { createHash, randomUUID } from 'node:crypto';

let sequence = 0;

export const REFUSED_ADDRESS = '192.0.2.99';

/**
 * Limits no run of the bench reaches, so that every request is admitted: the most a minute that is
 * still counted on one item (the sharded counters' threshold, shared/limits/counter-shards.ts;
 * test/bench/cases.test.ts holds them equal), so that the bench measures what every key up to it does.
 */
export const BENCH_LIMITS = { perMinute: 30_000, perDay: 100_000_000 };

/** `requestContext.authorizer` as API Gateway passes it once the authorizer allowed the key. */
function authorizerContext(key) {
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return {
    principalId: keyId,
    keyId,
    plan: 'enterprise',
    perMinute: String(BENCH_LIMITS.perMinute),
    perDay: String(BENCH_LIMITS.perDay),
  };
}

/**
 * The time each invocation is given. In AWS a function has 10 s and one DynamoDB call at most
 * 7.5 s (shared/dynamodb/client.ts), so no call needs an abort signal. Against DynamoDB Local the
 * client allows 21 s a call; 30 s keeps AWS's decision, so that the bench times the path AWS
 * runs (test/bench/cases.test.ts holds both).
 */
export const INVOCATION_MS = 30_000;

export function lambdaContext() {
  const deadline = Date.now() + INVOCATION_MS;
  return {
    functionName: 'bench',
    awsRequestId: `bench-${++sequence}`,
    getRemainingTimeInMillis: () => deadline - Date.now(),
    callbackWaitsForEmptyEventLoop: false,
  };
}

/** The resource with its path parameters filled in: `/pets/{petId}` → `/pets/1`. */
export function pathOf(spec) {
  return spec.resource.replace(/\{([^}]+)\}/g, (_, name) => {
    const value = spec.pathParameters?.[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${spec.resource}`);
    return value;
  });
}

/**
 * A request's spec with the data a setup made for it (bench/setups.ts): the fill's path
 * parameters and query parameters over the spec's own.
 */
export function withFill(spec, fill) {
  if (fill === undefined) return spec;
  return {
    ...spec,
    ...(fill.pathParameters === undefined
      ? {}
      : { pathParameters: { ...spec.pathParameters, ...fill.pathParameters } }),
    ...(fill.query === undefined ? {} : { query: { ...spec.query, ...fill.query } }),
  };
}

/**
 * The data a case's setup made before the timed run, one fill per request (bench/setups.ts): each
 * handed out once, in order. Running out is an error, never a fill used again: a request that
 * consumes its data (a delete) would answer otherwise the second time.
 */
export function poolOf(fills, name) {
  let next = 0;
  return {
    take() {
      if (next >= fills.length)
        throw new Error(
          `${name}: its setup made ${fills.length} requests' data, and a request more was sent: the pool must hold one fill per request sent`,
        );
      return fills[next++];
    },
    get taken() {
      return next;
    },
  };
}

/**
 * The end-to-end run's plan (end-to-end.mjs): each side's warm-up requests, then blocks of
 * requests per side in turn until each has `iterations` timed.
 */
export const END_TO_END = { warmUp: 30, block: 25 };

/** The requests the end-to-end run sends, both sides: what a case with a setup needs a fill for. */
export function endToEndRequests(iterations) {
  return 2 * (END_TO_END.warmUp + Math.ceil(iterations / END_TO_END.block) * END_TO_END.block);
}

/** The JSON body of a request; `{n}` in its strings stands for `n` (a number of its own per request); a text as written, as is. */
export function bodyOf(spec, n) {
  if (spec.bodyText !== undefined) return spec.bodyText;
  return spec.body === undefined ? null : JSON.stringify(spec.body).replaceAll('{n}', String(n));
}

const multiValue = (single) => Object.fromEntries(Object.entries(single).map(([k, v]) => [k, [v]]));

/** The event of one request of a case (bench/cases.ts), sent with the bench's key. */
export function eventOf(spec, { key }) {
  const requestId = `req-${++sequence}`;
  const headers = { Host: 'bench.example.com', 'X-Forwarded-Proto': 'https' };
  if (spec.type === 'authorizer') {
    headers.Authorization = `Bearer ${spec.key === 'unknown' ? `unknown-${sequence}` : key}`;
    // The REQUEST authorizer's event: the method request without its body, and the method's ARN.
    return {
      headers,
      multiValueHeaders: multiValue(headers),
      pathParameters: spec.pathParameters ?? null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: {
        requestId,
        domainName: 'bench.example.com',
        stage: 'v1',
        // The refused case comes from an address that has used up its allowance (the parity test fills it).
        identity: { sourceIp: spec.fromRefusedAddress ? REFUSED_ADDRESS : '192.0.2.10' },
      },
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:eu-west-1:123456789012:bench/v1/${spec.method}${pathOf(spec)}`,
      httpMethod: spec.method,
      resource: spec.resource,
      path: `/v1${pathOf(spec)}`,
    };
  }
  if (spec.type !== 'request') throw new Error(`no event of type ${spec.type}`);
  // Without the authorizer's context, the function was not reached through the authorizer (a 401).
  if (!spec.withoutAuthorizer) headers.Authorization = `Bearer ${key}`;
  const body = bodyOf(spec, sequence);
  if (body !== null) headers['Content-Type'] = 'application/json';
  // With a key: a fresh one per request (a first use, the common case).
  if (spec.freshIdempotencyKey) headers['Idempotency-Key'] = randomUUID();
  return {
    headers,
    multiValueHeaders: multiValue(headers),
    pathParameters: spec.pathParameters ?? null,
    queryStringParameters: spec.query ?? null,
    multiValueQueryStringParameters: spec.query === undefined ? null : multiValue(spec.query),
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      domainName: 'bench.example.com',
      stage: 'v1',
      identity: { sourceIp: '192.0.2.10' },
      ...(spec.withoutAuthorizer ? {} : { authorizer: authorizerContext(key) }),
    },
    httpMethod: spec.method,
    resource: spec.resource,
    path: pathOf(spec),
  };
}

/** Invokes a handler; an authorizer's answer is told as the status API Gateway would then answer with. */
export async function invoke(handler, event, context) {
  try {
    const result = await handler(event, context);
    if (result.statusCode !== undefined) return result;
    return {
      statusCode: result.policyDocument?.Statement?.[0]?.Effect === 'Allow' ? 200 : 429,
      body: JSON.stringify(result),
    };
  } catch (error) {
    if (error instanceof Error && error.message === 'Unauthorized') return { statusCode: 401, body: 'Unauthorized' };
    throw error;
  }
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
