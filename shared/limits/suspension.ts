import type { RateLimits } from './plans';

/**
 * The temporary ban: a key that keeps sending after its 429s is suspended for 15 minutes. Counted
 * per rate-limit window (the minute, or the day once its quota is used up) from the window's first
 * refusal: when more than 2.9 times the plan's per-minute limit of its requests are refused in
 * that same window, the refusal past that count starts the suspension. Only refusals of requests
 * that *arrived* (the gateway's arrival time) at least 1 s after the first refused one's arrival
 * count: their client could have had a Retry-After. So a single burst that arrives within that
 * second, however large and however slowly served, never suspends; and a new window starts a new
 * count, so a client that waits as Retry-After says (until the window that refused it ends) and
 * then sends another burst is never suspended either.
 *
 * The service sees a key and arrival times only, and a key is often shared by a fleet (workers of
 * a queue, many functions), so the count is set by what a fleet that obeys can cause: each worker
 * that waits as its own 429's Retry-After says is refused at most once in a window (its wait
 * reaches the window's end), so a fleet of up to twice the per-minute limit in workers is refused
 * at most 2 × that limit a window, and is never suspended. A client that goes on through a whole
 * minute at more than four times the per-minute rate sends more than 4 × limit requests: the limit
 * admitted, then more than 3 × limit refused, of which those of the second after its first refusal
 * (1/15 of the limit at four times the rate) never count: more than 2.93 × limit counted, past
 * 2.9 × limit, so it is suspended within that minute. docs/rate-limits-and-keys.md states it with
 * each plan's figures.
 */
// Typed by annotation, not `as const`: Stryker mutates nothing inside a type assertion (docs/testing.md).
export const SUSPENSION_RULE: {
  readonly refusalsTenthsPerLimit: number;
  readonly ignoredRetryAfterMs: number;
  readonly suspensionMs: number;
} = {
  /** A window's counted refusals past this many tenths of the per-minute limit (2.9 times it) suspend the key. */
  refusalsTenthsPerLimit: 29,
  /** A refusal counts only when its request arrived this long after the first refused one's. */
  ignoredRetryAfterMs: 1_000,
  suspensionMs: 15 * 60_000,
};

/** The most counted refusals a window may hold without suspending its key (or client address). */
export function refusalsAllowed(limits: RateLimits): number {
  // In whole numbers: 2.9 × 60 in floating point is 173.99999999999997.
  return Math.floor((SUSPENSION_RULE.refusalsTenthsPerLimit * limits.perMinute) / 10);
}
