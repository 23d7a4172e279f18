import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../../../shared/auth/principal';
import type { TimedCallDeadline } from '../../../../../shared/dynamodb/call-deadline';
import { KeySuspendedError, RateLimitedError } from '../../../../../shared/errors';
import { rateLimit } from '../../../../../shared/http/middleware/rate-limit';
import type { HttpContext } from '../../../../../shared/http/request-context';
import { STANDARD_PLAN_LIMITS } from '../../../../../shared/limits/plans';
import type { RateLimitDecision, RateLimiter, RateLimitStatus } from '../../../../../shared/limits/rate-limiter';

/**
 * The middleware that counts a request against its key's plan, on its own (built here, so its
 * factory runs under the test), with a stand-in limiter: what it asks the limiter, and what it
 * leaves on the context for the rest of the chain. test/http/rate-limits.test.ts holds the same
 * rules through the served API, with the real limiter.
 */
const principal: Principal = { keyId: '0123456789abcdef', plan: 'pro', limits: STANDARD_PLAN_LIMITS.pro };
const status: RateLimitStatus = {
  limits: STANDARD_PLAN_LIMITS.pro,
  window: 'minute',
  limit: 300,
  remaining: 12,
  resetAt: 1_800_000_060_000,
  nowMs: 1_800_000_000_000,
};
const deadline = { endsAt: 1_800_000_009_500 } as unknown as TimedCallDeadline;

function fakeLimiter(known: RateLimitDecision | undefined, decision: () => Promise<RateLimitDecision>) {
  const knownSuspension = vi.fn((_subject: string, _limits: unknown) => known);
  const check = vi.fn((_subject: string, _limits: unknown, _deadline?: unknown, _arrivedAt?: number) => decision());
  return { limiter: { knownSuspension, check } as unknown as RateLimiter, knownSuspension, check };
}

function count(
  limiter: RateLimiter,
  options: { principal?: Principal; requestContext?: Partial<APIGatewayProxyEvent['requestContext']> | undefined } = {},
): HttpContext['petStore'] {
  const petStore = {
    operationId: 'listPets',
    requestId: 'r',
    startedAt: 0,
    deadline,
    ...(options.principal ? { principal: options.principal } : {}),
  } as HttpContext['petStore'];
  const event = { headers: {}, multiValueHeaders: {}, requestContext: options.requestContext } as APIGatewayProxyEvent;
  const before = rateLimit(limiter).before as (request: unknown) => void;
  before({ event, context: { petStore }, response: undefined, error: undefined, internal: {} });
  return petStore;
}

describe('rateLimit', () => {
  it('is a middleware that runs before the handler, and only then', () => {
    const middleware = rateLimit(fakeLimiter(undefined, async () => ({ status, refusal: undefined })).limiter);
    expect(Object.keys(middleware)).toStrictEqual(['before']);
    expect(typeof middleware.before).toBe('function');
  });

  it('without a principal (the request is refused already) asks nothing and sets nothing', () => {
    const { limiter, knownSuspension, check } = fakeLimiter(undefined, async () => ({ status, refusal: undefined }));
    const state = count(limiter, { requestContext: { requestTimeEpoch: 1_800_000_000_000 } });
    expect(knownSuspension).not.toHaveBeenCalled();
    expect(check).not.toHaveBeenCalled();
    expect(state.admission).toBeUndefined();
    expect(state.rateLimit).toBeUndefined();
    expect(state.shed).toBeUndefined();
  });

  it('a key this container knows to be suspended: shed, refused with the suspension, and the counters never asked', async () => {
    const refusal = new KeySuspendedError(600);
    const suspendedStatus: RateLimitStatus = { ...status, remaining: 0, resetAt: 1_800_000_600_000 };
    const { limiter, knownSuspension, check } = fakeLimiter({ status: suspendedStatus, refusal }, async () => ({
      status,
      refusal: undefined,
    }));
    const state = count(limiter, { principal, requestContext: { requestTimeEpoch: 1_800_000_000_000 } });
    expect(knownSuspension).toHaveBeenCalledExactlyOnceWith('key#0123456789abcdef', STANDARD_PLAN_LIMITS.pro);
    expect(check).not.toHaveBeenCalled();
    expect(state.shed).toBe(true);
    expect(state.rateLimit).toBe(suspendedStatus);
    await expect(state.admission).rejects.toBe(refusal);
  });

  it("otherwise counts the key: by its id, its limits, the deadline and the gateway's arrival time; admitted, it sets the status", async () => {
    const { limiter, knownSuspension, check } = fakeLimiter(undefined, async () => ({ status, refusal: undefined }));
    const state = count(limiter, { principal, requestContext: { requestTimeEpoch: 1_799_999_999_123 } });
    expect(knownSuspension).toHaveBeenCalledExactlyOnceWith('key#0123456789abcdef', STANDARD_PLAN_LIMITS.pro);
    expect(check).toHaveBeenCalledExactlyOnceWith(
      'key#0123456789abcdef',
      STANDARD_PLAN_LIMITS.pro,
      deadline,
      1_799_999_999_123,
    );
    // Started, not awaited: the status comes with the decision.
    expect(state.admission).toBeInstanceOf(Promise);
    await expect(state.admission).resolves.toBeUndefined();
    expect(state.rateLimit).toBe(status);
    expect(state.shed).toBeUndefined();
  });

  it('refused by the counters: the admission rejects with the refusal, and the status is set', async () => {
    const refusal = new RateLimitedError(48, 'minute');
    const refusedStatus: RateLimitStatus = { ...status, remaining: 0 };
    const { limiter } = fakeLimiter(undefined, async () => ({ status: refusedStatus, refusal }));
    const state = count(limiter, { principal, requestContext: { requestTimeEpoch: 1_800_000_000_000 } });
    await expect(state.admission).rejects.toBe(refusal);
    expect(state.rateLimit).toBe(refusedStatus);
    expect(state.shed).toBeUndefined();
  });

  it('when the counters fail, the admission rejects with that failure and no status is set', async () => {
    const failure = new Error('the counter store is out of reach');
    const { limiter } = fakeLimiter(undefined, async () => {
      throw failure;
    });
    const state = count(limiter, { principal, requestContext: { requestTimeEpoch: 1_800_000_000_000 } });
    await expect(state.admission).rejects.toBe(failure);
    expect(state.rateLimit).toBeUndefined();
  });

  it('with no requestContext at all, counts with no arrival time', async () => {
    const { limiter, check } = fakeLimiter(undefined, async () => ({ status, refusal: undefined }));
    const state = count(limiter, { principal, requestContext: undefined });
    expect(check).toHaveBeenCalledExactlyOnceWith(
      'key#0123456789abcdef',
      STANDARD_PLAN_LIMITS.pro,
      deadline,
      undefined,
    );
    await expect(state.admission).resolves.toBeUndefined();
  });
});
