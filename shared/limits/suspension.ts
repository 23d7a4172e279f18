/**
 * The temporary ban: a key that keeps sending after a 429 is suspended. Counted from its first
 * refusal: when 30 more of its requests are refused within the 60 seconds that follow, the 30th
 * of them starts a 15-minute suspension. Only refusals of requests that *arrived* (the gateway's
 * arrival time) at least 1 s after the first refused one's arrival count: their client had a
 * Retry-After and ignored it. So a single burst that arrives within that second, however large
 * and however slowly served, never suspends; and requests the limiter lets through (a new minute
 * began) never count either: a client that honours Retry-After is never suspended.
 */
export const SUSPENSION_RULE = {
  refusalsToSuspend: 30,
  refusalWindowMs: 60_000,
  /** A refusal counts only when its request arrived this long after the first refused one's. */
  ignoredRetryAfterMs: 1_000,
  suspensionMs: 15 * 60_000,
} as const;
