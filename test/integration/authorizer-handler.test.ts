import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../local/api-gateway-event';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { setClock } from '../../shared/clock';
import { setLogSink } from '../../shared/log';
import { CHECK_ADDRESS } from '../../shared/release-check/check-identity';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * The REQUEST authorizer's handler, invoked directly on DynamoDB Local (through a fault proxy, to
 * make the datastore fail on demand): its answer, and the one log line of each refusal.
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);
let handler: (event: APIGatewayRequestAuthorizerEvent, context?: unknown) => Promise<APIGatewayAuthorizerResult>;
let TimedCallDeadline: typeof import('../../shared/dynamodb/call-deadline').TimedCallDeadline;
beforeAll(async () => {
  // Imported once the proxy is DYNAMODB_ENDPOINT: the shared config is read, and the handler's client made, when they load.
  ({ handler } = (await import('../../functions/authorizer/handler')) as unknown as { handler: typeof handler });
  ({ TimedCallDeadline } = await import('../../shared/dynamodb/call-deadline'));
  const { config } = await import('../../shared/config');
  expect(config.dynamoDbEndpoint).toBe(proxy.endpoint);
});

const API = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234';
const methodArn = `${API}/v1/GET/pets`;
const stageResource = `${API}/v1/*/*`;

let nowMs = Date.UTC(2026, 10, 24, 10, 0, 0);
let restoreClock: () => void;
let lines: string[] = [];
let restoreSink: ReturnType<typeof setLogSink>;
beforeAll(() => {
  restoreClock = setClock(() => nowMs);
  restoreSink = setLogSink((line) => lines.push(line));
});
afterAll(() => {
  restoreClock();
  setLogSink(restoreSink);
});
beforeEach(() => {
  lines = [];
});
afterEach(() => vi.restoreAllMocks());

const logged = (): Record<string, unknown>[] => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

interface EventOptions {
  readonly authorization?: string | string[];
  readonly sourceIp?: string;
  readonly requestId?: string;
  readonly httpMethod?: string;
  readonly resource?: string;
  readonly methodArn?: string;
  /** 'none': no requestContext at all; 'no-identity': a requestContext without identity. */
  readonly requestContext?: 'full' | 'none' | 'no-identity';
}

function event(options: EventOptions = {}): APIGatewayRequestAuthorizerEvent {
  const values = options.authorization === undefined ? [] : [options.authorization].flat();
  const requestContext =
    options.requestContext === 'none'
      ? undefined
      : options.requestContext === 'no-identity'
        ? { requestId: options.requestId ?? 'req-authorizer' }
        : {
            requestId: options.requestId ?? 'req-authorizer',
            identity: { sourceIp: options.sourceIp ?? '198.51.100.20' },
          };
  return {
    type: 'REQUEST',
    methodArn: options.methodArn ?? methodArn,
    resource: options.resource ?? '/pets',
    path: '/v1/pets',
    httpMethod: options.httpMethod ?? 'GET',
    headers: values.length === 0 ? {} : { Authorization: values[values.length - 1] },
    multiValueHeaders: values.length === 0 ? {} : { Authorization: values },
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    ...(requestContext === undefined ? {} : { requestContext }),
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

const PRO_KEY_ID = keyIdOf(hashApiKey('local-pro-key'));
const allowed = (resource = stageResource): APIGatewayAuthorizerResult => ({
  principalId: PRO_KEY_ID,
  usageIdentifierKey: 'local-pro-key',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  },
  context: { keyId: PRO_KEY_ID, plan: 'pro', perMinute: '300', perDay: '10000' },
});

/** The members a counted refusal's line carries (its metric), none of which a 503's or the release check's has. */
const REFUSAL_METRIC = { function: 'authorizer', version: '$LATEST', Refusals: 1 };

describe('the authorizer handler, a known key', () => {
  it('is allowed for the whole stage, the key as the usage identifier and the principal in the context; nothing logged', async () => {
    expect(
      await handler(event({ authorization: 'Bearer local-pro-key' }), lambdaContext('authorizer', 10_000)),
    ).toStrictEqual(allowed());
    expect(lines).toEqual([]);
  });

  it('is allowed for the stage of the methodArn, whatever its method and resource', async () => {
    const arn = 'arn:aws:execute-api:us-east-1:000000000000:zyx987/prod/POST/pets/{petId}/extra';
    expect(await handler(event({ authorization: 'Bearer local-pro-key', methodArn: arn }))).toStrictEqual(
      allowed('arn:aws:execute-api:us-east-1:000000000000:zyx987/prod/*/*'),
    );
    // A methodArn with no stage (API Gateway sends none such) stays within its API.
    expect(
      (await handler(event({ authorization: 'Bearer local-pro-key', methodArn: API }))).policyDocument.Statement,
    ).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${API}//*/*` }]);
  });

  it('is allowed without a requestContext, or without its identity', async () => {
    expect(await handler(event({ authorization: 'Bearer local-pro-key', requestContext: 'none' }))).toStrictEqual(
      allowed(),
    );
    expect(
      await handler(event({ authorization: 'Bearer local-pro-key', requestContext: 'no-identity' })),
    ).toStrictEqual(allowed());
  });

  it('sent twice in two Authorization headers is no key: Unauthorized', async () => {
    await expect(
      handler(event({ authorization: ['Bearer local-pro-key', 'Bearer local-pro-key'], sourceIp: '198.51.100.21' })),
    ).rejects.toThrow(/^Unauthorized$/);
  });
});

describe("the authorizer handler, an unknown key within the address's allowance", () => {
  it('throws exactly "Unauthorized" and logs one line: 401, unauthorized, the operation and its route, with the refusal metric', async () => {
    const error = await handler(
      event({ authorization: 'Bearer nope', requestId: 'req-401', httpMethod: 'POST' }),
      lambdaContext('authorizer', 10_000),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Unauthorized');
    const entries = logged();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      requestId: 'req-401',
      operation: 'createPet',
      route: 'POST /v1/pets',
      status: 401,
      code: 'unauthorized',
      ...REFUSAL_METRIC,
    });
    expect(entries[0]).not.toHaveProperty('error');
    expect(entries[0]?.durationMs).toEqual(expect.any(Number));
    expect(entries[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('names each operation it is for', async () => {
    await expect(handler(event({ authorization: 'Bearer nope', resource: '/pets/{petId}' }))).rejects.toThrow(
      /^Unauthorized$/,
    );
    await expect(handler(event({ authorization: 'Bearer nope' }))).rejects.toThrow(/^Unauthorized$/);
    expect(logged().map(({ operation, route }) => [operation, route])).toEqual([
      ['getPet', 'GET /v1/pets/{petId}'],
      ['listPets', 'GET /v1/pets'],
    ]);
  });

  it.each([
    ['PATCH', '/pets'],
    ['GET', '/owners'],
    ['GET', undefined],
  ])('names no operation nor route for %s %s, which is none', async (httpMethod, resource) => {
    const shaped = event({ authorization: 'Bearer nope', httpMethod });
    await expect(handler({ ...shaped, resource: resource as string })).rejects.toThrow(/^Unauthorized$/);
    const entries = logged();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      status: 401,
      code: 'unauthorized',
      ...REFUSAL_METRIC,
    });
    expect(Object.keys(entries[0] ?? {})).not.toContain('operation');
    expect(Object.keys(entries[0] ?? {})).not.toContain('route');
  });

  it('logs the request id as "unknown" without a requestContext, and still counts the refusal', async () => {
    await expect(handler(event({ authorization: 'Bearer nope', requestContext: 'none' }))).rejects.toThrow(
      /^Unauthorized$/,
    );
    await expect(
      handler(event({ authorization: 'Bearer nope', requestContext: 'no-identity', requestId: 'req-no-identity' })),
    ).rejects.toThrow(/^Unauthorized$/);
    expect(logged()).toEqual([
      expect.objectContaining({ requestId: 'unknown', status: 401, ...REFUSAL_METRIC }),
      expect.objectContaining({ requestId: 'req-no-identity', status: 401, ...REFUSAL_METRIC }),
    ]);
  });

  it("logs the release check's refusal without the refusal metric", async () => {
    await expect(
      handler(event({ authorization: 'Bearer release-check-token', sourceIp: CHECK_ADDRESS })),
    ).rejects.toThrow(/^Unauthorized$/);
    const [entry, ...others] = logged();
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ level: 'info', status: 401, code: 'unauthorized', operation: 'listPets' });
    for (const member of ['Refusals', '_aws', 'function', 'version']) expect(entry).not.toHaveProperty(member);
  });

  it('logs the time it took, in milliseconds to two decimals', async () => {
    vi.spyOn(performance, 'now').mockReturnValueOnce(1_000).mockReturnValue(1_012.34567);
    await expect(handler(event({ authorization: 'Bearer nope' }))).rejects.toThrow(/^Unauthorized$/);
    expect(logged()[0]?.durationMs).toBe(12.35);
  });
});

describe('the authorizer handler, an address over its allowance', () => {
  it('denies with the 429 in its context, logged as a counted refusal; the address is the sourceIp', async () => {
    nowMs = Date.UTC(2026, 10, 24, 10, 5, 15);
    const address = '203.0.113.50';
    for (let i = 0; i < 60; i += 1)
      await expect(handler(event({ authorization: `Bearer guess-${i}`, sourceIp: address }))).rejects.toThrow(
        /^Unauthorized$/,
      );
    lines = [];
    const denied = await handler(
      event({ authorization: 'Bearer guess-60', sourceIp: address, requestId: 'req-429' }),
      lambdaContext('authorizer', 10_000),
    );
    expect(denied).toStrictEqual({
      principalId: 'address',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageResource }],
      },
      context: {
        code: 'rate_limited',
        message: 'Too many requests without a valid API key from this address; retry after the time in Retry-After.',
        retryAfter: '45',
        rateLimitLimit: '60',
        rateLimitRemaining: '0',
        rateLimitReset: String(Date.UTC(2026, 10, 24, 10, 6, 0) / 1000),
        rateLimitPolicy: '"minute";q=60;w=60, "day";q=1000;w=86400',
        rateLimit: '"minute";r=0;t=45',
      },
    });
    expect(Number(denied.context?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(String(denied.context?.retryAfter)).toMatch(/^[1-9][0-9]*$/);
    const entries = logged();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      requestId: 'req-429',
      operation: 'listPets',
      route: 'GET /v1/pets',
      status: 429,
      code: 'rate_limited',
      ...REFUSAL_METRIC,
    });
    expect(entries[0]).not.toHaveProperty('error');
    // Another address is not refused.
    await expect(handler(event({ authorization: 'Bearer guess-61', sourceIp: '203.0.113.51' }))).rejects.toThrow(
      /^Unauthorized$/,
    );
  });

  it('counts requests without an address as from the address "unknown"', async () => {
    nowMs = Date.UTC(2026, 10, 24, 10, 7, 30);
    for (let i = 0; i < 30; i += 1)
      await expect(handler(event({ authorization: `Bearer u-${i}`, requestContext: 'none' }))).rejects.toThrow(
        /^Unauthorized$/,
      );
    for (let i = 30; i < 60; i += 1)
      await expect(handler(event({ authorization: `Bearer u-${i}`, requestContext: 'no-identity' }))).rejects.toThrow(
        /^Unauthorized$/,
      );
    const denied = await handler(event({ authorization: 'Bearer u-60', sourceIp: 'unknown' }));
    expect(denied.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageResource },
    ]);
    expect(denied.context).toMatchObject({ code: 'rate_limited', retryAfter: '30', rateLimitRemaining: '0' });
  });
});

describe('the authorizer handler, when the datastore fails', () => {
  it('rethrows the error (API Gateway answers 503) and logs it at error level, with no refusal metric', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // the SDK's shortest backoff
    proxy.inject('reset', ['GetItem']);
    const error = await handler(
      event({ authorization: 'Bearer local-pro-key', requestId: 'req-503' }),
      lambdaContext('authorizer', 10_000),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toBe('Unauthorized');
    const entries = logged();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'error',
      msg: 'request',
      requestId: 'req-503',
      operation: 'listPets',
      route: 'GET /v1/pets',
      status: 503,
      code: 'service_unavailable',
      error: { name: (error as Error).name, message: (error as Error).message },
    });
    expect(entries[0]?.durationMs).toEqual(expect.any(Number));
    for (const member of ['Refusals', '_aws', 'function']) expect(entries[0]).not.toHaveProperty(member);
  });

  it('also when counting an unknown key fails', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    proxy.inject('reset', ['UpdateItem']); // the address's counter; the key's lookup (GetItem) answers
    await expect(handler(event({ authorization: 'Bearer nope', requestId: 'req-503-count' }))).rejects.not.toThrow(
      /^Unauthorized$/,
    );
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'error',
        requestId: 'req-503-count',
        status: 503,
        code: 'service_unavailable',
        error: expect.objectContaining({ name: expect.any(String) }),
      }),
    ]);
    expect(proxy.seen.get('GetItem')).toBeGreaterThanOrEqual(1);
    expect(proxy.seen.get('UpdateItem')).toBeGreaterThanOrEqual(1);
  });
});

describe('the authorizer handler, its deadline', () => {
  it('is released at the end of every invocation, allowed, refused or failed', async () => {
    const clear = vi.spyOn(TimedCallDeadline.prototype, 'clear');
    // Little time left: the deadline arms its timer for the calls.
    await handler(event({ authorization: 'Bearer local-pro-key' }), lambdaContext('authorizer', 1_000));
    expect(clear).toHaveBeenCalledTimes(1);
    await expect(handler(event({ authorization: 'Bearer nope' }), lambdaContext('authorizer', 1_000))).rejects.toThrow(
      /^Unauthorized$/,
    );
    expect(clear).toHaveBeenCalledTimes(2);
    proxy.inject('reset', ['GetItem']);
    await expect(
      handler(event({ authorization: 'Bearer local-pro-key' }), lambdaContext('authorizer', 1_000)),
    ).rejects.toThrow();
    expect(clear).toHaveBeenCalledTimes(3);
  });
});
