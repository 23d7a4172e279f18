import { describe, expect, it } from 'vitest';
import { authorize } from '../../../../shared/auth/authorize';
import { AUTHORIZER_RESULT_TTL_SECONDS } from '../../../../shared/auth/authorizer-contract';
import { KeySuspendedError, RateLimitedError } from '../../../../shared/errors';
import { STANDARD_PLAN_LIMITS } from '../../../../shared/limits/plans';
import type { RateLimitDecision } from '../../../../shared/limits/rate-limiter';

/**
 * The authorizer's answer to a request without a valid key, once its address is over the Free
 * limits: what the client reads tells a rate limit from a suspension. The limiter and registry
 * are stand-ins here; test/integration/authorizer.test.ts runs the real ones.
 */
const status = {
  limits: STANDARD_PLAN_LIMITS.free,
  window: 'minute',
  limit: 60,
  remaining: 0,
  resetAt: 60_000,
  nowMs: 0,
} as const;
const refusedBy = (refusal: RateLimitDecision['refusal']) => ({
  registry: { resolve: async () => undefined },
  limiter: { check: async () => ({ status, refusal }) },
});

describe('authorize, an address over its allowance', () => {
  it('says "too many requests" when rate limited, and "suspended" when suspended, never the other', async () => {
    const limited = await authorize({ kind: 'missing' }, '192.0.2.1', refusedBy(new RateLimitedError(5, 'minute')));
    const suspended = await authorize({ kind: 'malformed' }, '192.0.2.1', refusedBy(new KeySuspendedError(600)));
    if (limited.outcome !== 'refused' || suspended.outcome !== 'refused') throw new Error('expected two refusals');
    expect(limited.problem).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.problem.message).toMatch(/^Too many requests without a valid API key from this address/);
    expect(limited.problem.message).not.toContain('suspended');
    expect(suspended.problem).toMatchObject({ status: 429, code: 'key_suspended', retryAfterSeconds: 600 });
    expect(suspended.problem.message).toMatch(/^This address is suspended for a while/);
    // Never sooner than the gateway's cache keeps the refusal.
    expect(limited.problem.retryAfterSeconds).toBe(Math.max(5, AUTHORIZER_RESULT_TTL_SECONDS));
  });

  it('lets an unknown key through as unauthorized while the address has allowance left', async () => {
    const answer = await authorize({ kind: 'token', token: 'unknown' }, '192.0.2.1', refusedBy(undefined));
    expect(answer).toEqual({ outcome: 'unauthorized' });
  });
});
