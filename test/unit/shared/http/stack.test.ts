import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { REQUEST_CHECKS } from '../../../../functions/createPet/request-checks.generated';
import { lambdaContext } from '../../../../local/api-gateway-event';
import { ServiceUnavailableError } from '../../../../shared/errors';
import { MAX_BODY_BYTES } from '../../../../shared/http/body-limit';
import { created } from '../../../../shared/http/result';
import { httpOperation } from '../../../../shared/http/stack';
import type { Admission } from '../../../../shared/limits/counter-store';
import { RateLimiter } from '../../../../shared/limits/rate-limiter';
import { authorizerContextOf } from '../../../support/api';

/**
 * The order in which the stack judges a request (docs/api-behaviour.md#the-order-a-request-is-judged-in):
 * the caller (401), then its count (429, or 503 when the counters are out of reach) while path,
 * query and headers are judged, and only once the request is admitted its body (413, 400). A
 * request refused for any reason, shed by a suspension included, parses and judges none of its
 * body, whatever it holds: here createPet's own checks, with its body schema counting its calls.
 */
function createPetWith(admit: () => Promise<Admission>) {
  // read: reads of the event's body (its text: the JSON parse and scan come after); bodies: the
  // body schema's runs; received: bodies the operation got (it starts while the request is
  // counted, so that its reads overlap the count, but gets the body only once admitted).
  const judged = { read: 0, bodies: 0, received: 0 };
  const bodyChecks = REQUEST_CHECKS.body['~standard'];
  const countingBody = {
    '~standard': {
      ...bodyChecks,
      validate: (value: unknown) => {
        judged.bodies += 1;
        return bodyChecks.validate(value);
      },
    },
  } as typeof REQUEST_CHECKS.body;
  const handler = httpOperation({
    ...REQUEST_CHECKS,
    body: countingBody,
    rateLimiter: new RateLimiter({ admit }, Date.now),
    handle: async ({ body }) => {
      await body;
      judged.received += 1;
      return created({ id: 1 });
    },
  });
  const send = (request: { body: string; query?: Record<string, string>; authorized?: boolean }) => {
    const event = createPetEvent(request);
    Object.defineProperty(event, 'body', {
      get: () => {
        judged.read += 1;
        return request.body;
      },
    });
    return handler(event, lambdaContext('createPet', 3_000));
  };
  return { judged, send };
}

function createPetEvent({
  body,
  query,
  authorized = true,
}: {
  body: string;
  query?: Record<string, string>;
  authorized?: boolean;
}): APIGatewayProxyEvent {
  return {
    httpMethod: 'POST',
    resource: '/pets',
    path: '/pets',
    pathParameters: null,
    headers: { Authorization: 'Bearer local-free-key', 'Content-Type': 'application/json' },
    multiValueHeaders: { Authorization: ['Bearer local-free-key'], 'Content-Type': ['application/json'] },
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters:
      query === undefined ? null : Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'judging-order',
      domainName: 'example.com',
      path: '/v1/pets',
      identity: { sourceIp: '127.0.0.1' },
      authorizer: authorized ? authorizerContextOf('local-free-key') : null,
    },
  } as unknown as APIGatewayProxyEvent;
}

const admitted = async (): Promise<Admission> => ({ outcome: 'admitted', minuteCount: 1, dayCount: 1 });
const refused = async (): Promise<Admission> => ({
  outcome: 'refused',
  window: 'minute',
  minuteCount: 60,
  dayCount: 60,
});
const suspended = async (): Promise<Admission> => ({
  outcome: 'suspended',
  until: Date.now() + 600_000,
  minuteCount: 60,
  dayCount: 60,
});
const unavailable = async (): Promise<Admission> => {
  throw new ServiceUnavailableError(new Error('throttled'));
};

/** A body that parses but whose every field fails: an empty name, a number written as no integer, an unknown member. */
const INVALID_BODY = '{"name":"","categoryId":1.0000000000000000001,"staus":"sold"}';
const VALID_BODY = '{"name":"Rex","categoryId":1}';

describe('the order a request is judged in', () => {
  it("a request without the authorizer's principal: 401, its body never judged", async () => {
    const { judged, send } = createPetWith(admitted);
    expect((await send({ body: INVALID_BODY, authorized: false })).statusCode).toBe(401);
    expect(judged).toStrictEqual({ read: 0, bodies: 0, received: 0 });
  });

  it('a request over its limit: 429 rate_limited, whatever its body and its query, its body never judged', async () => {
    const { judged, send } = createPetWith(refused);
    const response = await send({ body: INVALID_BODY, query: { unknown: '1' } });
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body).code).toBe('rate_limited');
    expect((await send({ body: 'x'.repeat(MAX_BODY_BYTES + 1) })).statusCode).toBe(429);
    expect(judged).toStrictEqual({ read: 0, bodies: 0, received: 0 });
  });

  it('a suspended key: 429 key_suspended, then shed by the instance that knows it, its body never judged either time', async () => {
    let asked = 0;
    const { judged, send } = createPetWith(() => {
      asked += 1;
      return suspended();
    });
    for (let i = 0; i < 2; i += 1) {
      const response = await send({ body: INVALID_BODY });
      expect(response.statusCode).toBe(429);
      expect(JSON.parse(response.body).code).toBe('key_suspended');
    }
    expect(asked).toBe(1); // the second was shed without asking the counters
    expect(judged).toStrictEqual({ read: 0, bodies: 0, received: 0 });
  });

  it('counters out of reach: 503, its body never judged', async () => {
    const { judged, send } = createPetWith(unavailable);
    expect((await send({ body: INVALID_BODY })).statusCode).toBe(503);
    expect(judged).toStrictEqual({ read: 0, bodies: 0, received: 0 });
  });

  it('admitted: its body judged once; one 400 names the failing query and body alike; nothing runs', async () => {
    const { judged, send } = createPetWith(admitted);
    const response = await send({ body: INVALID_BODY, query: { unknown: '1' } });
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).details).toEqual([
      { path: 'query.unknown', message: 'is not a known parameter' },
      { path: 'body.name', message: 'must not be empty or only white space' },
      { path: 'body.categoryId', message: 'must be an integer from 1 to 9007199254740991' },
      { path: 'body.staus', message: 'is not a known field' },
    ]);
    expect(judged).toStrictEqual({ read: expect.any(Number), bodies: 1, received: 0 });
  });

  it('admitted: a member given twice is a 400 before the schema; a body over the limit a 413 before anything reads it', async () => {
    const { judged, send } = createPetWith(admitted);
    expect(JSON.parse((await send({ body: '{"name":"Rex","categoryId":1,"name":"Rex"}' })).body).details).toEqual([
      { path: 'body.name', message: 'is given more than once' },
    ]);
    const tooLarge = await send({ body: `{"name":"Rex","categoryId":1,"x":"${'x'.repeat(MAX_BODY_BYTES)}"}` });
    expect(tooLarge.statusCode).toBe(413);
    expect(JSON.parse(tooLarge.body)).toStrictEqual({
      code: 'invalid_request',
      message: 'The request body is larger than this API accepts (16,384 bytes).',
      status: 413,
    });
    expect(judged).toStrictEqual({ read: expect.any(Number), bodies: 0, received: 0 });
  });

  it('admitted with a valid body: judged once, then the operation runs', async () => {
    const { judged, send } = createPetWith(admitted);
    expect((await send({ body: VALID_BODY })).statusCode).toBe(201);
    expect(judged).toStrictEqual({ read: expect.any(Number), bodies: 1, received: 1 });
  });
});
