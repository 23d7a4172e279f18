/**
 * The temporary ban: a key that keeps sending after a 429 is suspended. Counted from its first
 * refusal: when 30 more of its requests are refused within the 60 seconds that follow, the 30th
 * of them starts a 15-minute suspension. Requests the limiter lets through (a new minute began)
 * never count toward it, so a client that honours Retry-After is never suspended.
 */
export const SUSPENSION_RULE = {
  refusalsToSuspend: 30,
  refusalWindowMs: 60_000,
  suspensionMs: 15 * 60_000,
} as const;
