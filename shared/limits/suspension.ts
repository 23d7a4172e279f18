/**
 * The temporary ban: a key that keeps sending after a 429 is suspended. Counted per rate-limit
 * window (the minute, or the day once its quota is used up) from the window's first refusal: when
 * 30 more of its requests are refused in that same window, the 30th of them starts a 15-minute
 * suspension. Only refusals of requests that *arrived* (the gateway's arrival time) at least 1 s
 * after the first refused one's arrival count: their client had a Retry-After and ignored it. So a
 * single burst that arrives within that second, however large and however slowly served, never
 * suspends; and a new window starts a new count, so a client that waits as Retry-After says (until
 * the window that refused it ends) and then sends another burst is never suspended either.
 */
// Typed by annotation, not `as const`: Stryker mutates nothing inside a type assertion (docs/testing.md).
export const SUSPENSION_RULE: { readonly refusalsToSuspend: number; readonly ignoredRetryAfterMs: number; readonly suspensionMs: number } = {
  refusalsToSuspend: 30,
  /** A refusal counts only when its request arrived this long after the first refused one's. */
  ignoredRetryAfterMs: 1_000,
  suspensionMs: 15 * 60_000,
};
