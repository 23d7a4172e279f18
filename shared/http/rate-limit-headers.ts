import type { RateLimitStatus } from '../limits/rate-limiter';
import { WINDOW_SECONDS } from '../limits/windows';

/**
 * The rate-limit headers of every response: the X-RateLimit-* trio of the interface, for the
 * window closest to running out, and the IETF draft's structured `RateLimit-Policy` (both
 * windows) and `RateLimit` (that window) for clients that read the standard form.
 */
export function rateLimitHeaders(status: RateLimitStatus): Record<string, string> {
  const secondsToReset = Math.max(0, Math.ceil((status.resetAt - status.nowMs) / 1000));
  return {
    'X-RateLimit-Limit': String(status.limit),
    'X-RateLimit-Remaining': String(status.remaining),
    'X-RateLimit-Reset': String(Math.ceil(status.resetAt / 1000)),
    'RateLimit-Policy': `"minute";q=${status.limits.perMinute};w=${WINDOW_SECONDS.minute}, "day";q=${status.limits.perDay};w=${WINDOW_SECONDS.day}`,
    RateLimit: `"${status.window}";r=${status.remaining};t=${secondsToReset}`,
  };
}
