import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { principalContext } from '../../../../../shared/auth/authorizer-contract';
import type { Principal } from '../../../../../shared/auth/principal';
import { UnauthorizedError } from '../../../../../shared/errors';
import { identifyCaller } from '../../../../../shared/http/middleware/authenticate';
import type { HttpContext } from '../../../../../shared/http/request-context';
import { STANDARD_PLAN_LIMITS } from '../../../../../shared/limits/plans';

/**
 * The middleware that finds out who is calling, on its own (built here, so its factory runs under
 * the test): the principal the authorizer allowed, from `requestContext.authorizer`, or a 401
 * recorded (not thrown) that says whether a key was sent at all. The HTTP tests
 * (test/http/authorization-header.test.ts) hold the same rules through the served API.
 */
const principal: Principal = { keyId: '0123456789abcdef', plan: 'pro', limits: STANDARD_PLAN_LIMITS.pro };

function identify(event: Partial<APIGatewayProxyEvent>): HttpContext['petStore'] {
  const petStore = {
    operationId: 'listPets',
    requestId: 'r',
    startedAt: 0,
    deadline: undefined,
  } as HttpContext['petStore'];
  const before = identifyCaller().before as (request: unknown) => void;
  before({
    event: { headers: {}, multiValueHeaders: {}, ...event } as APIGatewayProxyEvent,
    context: { petStore },
    response: undefined,
    error: undefined,
    internal: {},
  });
  return petStore;
}

const withKey = (value = 'Bearer some-key') => ({
  headers: { Authorization: value },
  multiValueHeaders: { Authorization: [value] },
});
const allowed = {
  requestContext: { authorizer: principalContext(principal) } as unknown as APIGatewayProxyEvent['requestContext'],
};

describe('identifyCaller', () => {
  it('is a middleware that runs before the handler, and only then', () => {
    const middleware = identifyCaller();
    expect(Object.keys(middleware)).toStrictEqual(['before']);
    expect(typeof middleware.before).toBe('function');
  });

  it('takes the principal the authorizer allowed, and refuses nothing', () => {
    const state = identify({ ...withKey(), ...allowed });
    expect(state.principal).toStrictEqual(principal);
    expect(state.refusal).toBeUndefined();
  });

  it('takes the principal when the event has no multi-value headers (one header at most, then)', () => {
    const state = identify({
      headers: { authorization: 'Bearer some-key' },
      multiValueHeaders: undefined as unknown as APIGatewayProxyEvent['multiValueHeaders'],
      ...allowed,
    });
    expect(state.principal).toStrictEqual(principal);
    expect(state.refusal).toBeUndefined();
  });

  it('refuses two Authorization headers as an invalid key (401), even with an allowed principal', () => {
    const twice = identify({
      headers: { Authorization: 'Bearer b' },
      multiValueHeaders: { Authorization: ['Bearer a', 'Bearer b'] },
      ...allowed,
    });
    expect(twice.principal).toBeUndefined();
    expect(twice.refusal).toBeInstanceOf(UnauthorizedError);
    expect(twice.refusal).toMatchObject({
      status: 401,
      code: 'unauthorized',
      reason: 'invalid',
      message: 'The API key is malformed, unknown or revoked.',
    });
    // In two spellings too.
    const spelled = identify({
      headers: { authorization: 'Bearer a' },
      multiValueHeaders: { authorization: ['Bearer a'], AUTHORIZATION: ['Bearer b'] },
      ...allowed,
    });
    expect(spelled.principal).toBeUndefined();
    expect(spelled.refusal).toMatchObject({ status: 401, reason: 'invalid' });
  });

  it('without an authorizer context and without a key: 401 "missing"', () => {
    const state = identify({
      requestContext: { authorizer: null } as unknown as APIGatewayProxyEvent['requestContext'],
    });
    expect(state.principal).toBeUndefined();
    expect(state.refusal).toBeInstanceOf(UnauthorizedError);
    expect(state.refusal).toMatchObject({
      status: 401,
      code: 'unauthorized',
      reason: 'missing',
      message: 'An API key is required: send it as "Authorization: Bearer <key>".',
    });
  });

  it('without an authorizer context but with a key: 401 "invalid"', () => {
    const state = identify({ ...withKey(), requestContext: {} as APIGatewayProxyEvent['requestContext'] });
    expect(state.principal).toBeUndefined();
    expect(state.refusal).toMatchObject({
      status: 401,
      code: 'unauthorized',
      reason: 'invalid',
      message: 'The API key is malformed, unknown or revoked.',
    });
  });

  it('with no requestContext at all (a direct invocation): 401, by whether a key was sent', () => {
    const missing = identify({ requestContext: undefined as unknown as APIGatewayProxyEvent['requestContext'] });
    expect(missing.principal).toBeUndefined();
    expect(missing.refusal).toMatchObject({ status: 401, reason: 'missing' });
    const invalid = identify({
      ...withKey('Bearer x'),
      requestContext: undefined as unknown as APIGatewayProxyEvent['requestContext'],
    });
    expect(invalid.refusal).toMatchObject({ status: 401, reason: 'invalid' });
  });

  it('reads the Authorization header in any spelling', () => {
    const state = identify({
      headers: { aUtHoRiZaTiOn: 'Bearer x' },
      multiValueHeaders: { aUtHoRiZaTiOn: ['Bearer x'] },
    });
    expect(state.refusal).toMatchObject({ reason: 'invalid' });
  });
});
