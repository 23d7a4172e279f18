import type { RateLimits } from '../limits/plans';
import type { RateLimitStatus } from '../limits/rate-limiter';
import { WINDOW_SECONDS } from '../limits/windows';

/**
 * The rate-limit headers of every response, written into its headers object: the X-RateLimit-*
 * trio of the interface, for the window closest to running out, and the IETF draft's structured
 * `RateLimit-Policy` (both windows) and `RateLimit` (that window) for clients that read the
 * standard form.
 */
export function setRateLimitHeaders(headers: Record<string, string | number | boolean>, status: RateLimitStatus): void {
  const secondsToReset = Math.max(0, Math.ceil((status.resetAt - status.nowMs) / 1000));
  headers['X-RateLimit-Limit'] = String(status.limit);
  headers['X-RateLimit-Remaining'] = String(status.remaining);
  headers['X-RateLimit-Reset'] = String(Math.ceil(status.resetAt / 1000));
  headers['RateLimit-Policy'] = policyOf(status.limits);
  headers.RateLimit = `"${status.window}";r=${status.remaining};t=${secondsToReset}`;
}

/** A plan's policy header never changes: made once per limits object. */
const policies = new WeakMap<RateLimits, string>();
function policyOf(limits: RateLimits): string {
  let policy = policies.get(limits);
  if (policy === undefined) {
    policy = `"minute";q=${limits.perMinute};w=${WINDOW_SECONDS.minute}, "day";q=${limits.perDay};w=${WINDOW_SECONDS.day}`;
    policies.set(limits, policy);
  }
  return policy;
}
