import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer/handler';
import { lambdaContext } from '../../local/api-gateway-event';
import { principalFromContext } from '../../shared/auth/authorizer-contract';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { setClock } from '../../shared/clock';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';

/** The REQUEST authorizer on DynamoDB Local (this file's table holds the demo keys), on a clock the test moves. */
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/GET/pets';
const stageResource = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/*/*';
let nowMs = Date.UTC(2026, 10, 23, 9, 0, 20);
let restoreClock: () => void;
beforeAll(() => {
  restoreClock = setClock(() => nowMs);
});
afterAll(() => restoreClock());

function event(authorization: string | undefined, sourceIp = '198.51.100.7'): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn,
    resource: '/pets',
    path: '/v1/pets',
    httpMethod: 'GET',
    headers: authorization === undefined ? {} : { Authorization: authorization },
    multiValueHeaders: authorization === undefined ? {} : { Authorization: [authorization] },
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: { requestId: 'authorizer-test', identity: { sourceIp } },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

const authorizeWith = (authorization: string | undefined, sourceIp?: string) =>
  handler(event(authorization, sourceIp), lambdaContext('authorizer', 10_000));

describe('the REQUEST authorizer', () => {
  it('allows a known key for the whole stage, with the key as the usage identifier and the plan in its context', async () => {
    const result = await authorizeWith('Bearer local-pro-key');
    expect(result).toEqual({
      principalId: keyIdOf(hashApiKey('local-pro-key')),
      usageIdentifierKey: 'local-pro-key',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageResource }],
      },
      context: { keyId: keyIdOf(hashApiKey('local-pro-key')), plan: 'pro', perMinute: '300', perDay: '10000' },
    });
    // What the function reads back from requestContext.authorizer.
    expect(principalFromContext({ principalId: result.principalId, ...result.context })).toEqual({
      keyId: keyIdOf(hashApiKey('local-pro-key')),
      plan: 'pro',
      limits: STANDARD_PLAN_LIMITS.pro,
    });
  });

  it.each(['Bearer no-such-key', 'Basic abc', 'Bearer', 'Bearer a b', ''])(
    'answers %j with Unauthorized (401)',
    async (authorization) => {
      await expect(authorizeWith(authorization, '198.51.100.8')).rejects.toThrow(/^Unauthorized$/);
    },
  );

  it('counts bad tokens per address: the 61st in a minute is denied with the 429 in its context, until the minute ends; another address and a valid key are unaffected', async () => {
    nowMs = Date.UTC(2026, 10, 23, 9, 1, 20);
    const address = '203.0.113.9';
    for (let i = 1; i <= 60; i += 1)
      await expect(authorizeWith(`Bearer guess-${i}`, address)).rejects.toThrow(/^Unauthorized$/);
    const denied = await authorizeWith('Bearer guess-61', address);
    expect(denied.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageResource },
    ]);
    expect(denied.usageIdentifierKey).toBeUndefined();
    expect(denied.context).toEqual({
      code: 'rate_limited',
      message: expect.stringMatching(/^[^"\\]+$/),
      retryAfter: '40',
      rateLimitLimit: '60',
      rateLimitRemaining: '0',
      rateLimitReset: String(Date.UTC(2026, 10, 23, 9, 2, 0) / 1000),
      rateLimitPolicy: '"minute";q=60;w=60, "day";q=1000;w=86400',
      rateLimit: '"minute";r=0;t=40',
    });
    // Malformed credentials from that address are refused the same way.
    expect((await authorizeWith('Basic abc', address)).policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });

    await expect(authorizeWith('Bearer guess-62', '203.0.113.10')).rejects.toThrow(/^Unauthorized$/);
    expect((await authorizeWith('Bearer local-free-key', address)).policyDocument.Statement[0]).toMatchObject({
      Effect: 'Allow',
    });

    // Near the minute's end, Retry-After still covers API Gateway's 30 s cache of this Deny.
    nowMs = Date.UTC(2026, 10, 23, 9, 1, 50);
    expect((await authorizeWith('Bearer guess-64', address)).context).toMatchObject({
      retryAfter: '30',
      rateLimit: '"minute";r=0;t=10',
    });

    nowMs = Date.UTC(2026, 10, 23, 9, 2, 0);
    await expect(authorizeWith('Bearer guess-63', address)).rejects.toThrow(/^Unauthorized$/);
  });

  it('suspends an address that keeps guessing after it was refused', async () => {
    nowMs = Date.UTC(2026, 10, 23, 9, 10, 0);
    const address = '203.0.113.77';
    for (let i = 0; i < 60; i += 1)
      await expect(authorizeWith(`Bearer g${i}`, address)).rejects.toThrow(/^Unauthorized$/);
    const codes: string[] = [String((await authorizeWith('Bearer h-first', address)).context?.code)]; // the first refusal
    nowMs += 1_000; // its Retry-After ignored: from now on refusals count
    // Under the Free limits: the 175th counted refusal (more than 2.9 × 60) suspends it.
    for (let i = 0; i < 175; i += 1) codes.push(String((await authorizeWith(`Bearer h${i}`, address)).context?.code));
    expect(codes.slice(0, 175)).toEqual(Array(175).fill('rate_limited'));
    expect(codes[175]).toBe('key_suspended');
    nowMs += 5 * 60_000;
    expect((await authorizeWith('Bearer later', address)).context).toMatchObject({
      code: 'key_suspended',
      retryAfter: '600',
    });
  });
});
