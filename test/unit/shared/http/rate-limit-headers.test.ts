import { describe, expect, it } from 'vitest';
import { setRateLimitHeaders } from '../../../../shared/http/rate-limit-headers';
import { STANDARD_PLAN_LIMITS } from '../../../../shared/limits/plans';
import type { RateLimitStatus } from '../../../../shared/limits/rate-limiter';

/**
 * The rate-limit headers of an answer (decisions.md): the X-RateLimit-* trio, and the IETF draft's
 * RateLimit-Policy and RateLimit. Every other test runs on a clock at whole seconds, where rounding
 * up and down agree; these run between them.
 */
const headersOf = (status: Partial<RateLimitStatus>): Record<string, string | number | boolean> => {
  const headers: Record<string, string | number | boolean> = {};
  setRateLimitHeaders(headers, {
    limits: STANDARD_PLAN_LIMITS.pro,
    window: 'minute',
    limit: 300,
    remaining: 7,
    resetAt: 1_800_000_060_000,
    nowMs: 1_800_000_000_000,
    ...status,
  });
  return headers;
};

describe('the rate-limit headers', () => {
  it('on a clock between whole seconds: the seconds until the reset rounded up (29.5 s left is t=30), never to 0 while the window lasts', () => {
    expect(headersOf({ nowMs: 1_800_000_030_500 }).RateLimit).toBe('"minute";r=7;t=30');
    expect(headersOf({ nowMs: 1_800_000_059_999 }).RateLimit).toBe('"minute";r=7;t=1');
    expect(headersOf({ nowMs: 1_800_000_000_001 }).RateLimit).toBe('"minute";r=7;t=60');
  });

  it('on a whole second: the seconds left exactly; at or past the reset: 0, never negative', () => {
    expect(headersOf({}).RateLimit).toBe('"minute";r=7;t=60');
    expect(headersOf({ nowMs: 1_800_000_060_000 }).RateLimit).toBe('"minute";r=7;t=0');
    expect(headersOf({ nowMs: 1_800_000_061_500 }).RateLimit).toBe('"minute";r=7;t=0');
  });

  it('the trio: the limit, what is left, and the reset in epoch seconds, rounded up', () => {
    expect(headersOf({ resetAt: 1_800_000_060_000 })).toMatchObject({
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '7',
      'X-RateLimit-Reset': '1800000060',
    });
    expect(headersOf({ resetAt: 1_800_000_060_001 })['X-RateLimit-Reset']).toBe('1800000061');
  });

  it("the policy names both windows of the plan, with their seconds; the day window's status its own name", () => {
    const day = headersOf({ window: 'day', limit: 10_000, remaining: 0, resetAt: 1_800_057_600_000 });
    expect(day).toMatchObject({
      'RateLimit-Policy': '"minute";q=300;w=60, "day";q=10000;w=86400',
      RateLimit: '"day";r=0;t=57600',
      'X-RateLimit-Limit': '10000',
    });
    // The same plan's policy again (made once per limits object), and another plan's its own.
    expect(headersOf({})['RateLimit-Policy']).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
    expect(headersOf({ limits: STANDARD_PLAN_LIMITS.free })['RateLimit-Policy']).toBe(
      `"minute";q=${STANDARD_PLAN_LIMITS.free.perMinute};w=60, "day";q=${STANDARD_PLAN_LIMITS.free.perDay};w=86400`,
    );
  });
});
