/** What one synchronous invocation of a function gave back, as Lambda tells it. */
export type InvocationOutcome =
  /** The handler returned: its result, as JSON carries it. */
  | { readonly kind: 'returned'; readonly payload: unknown }
  /** Lambda's function error: the handler threw, its module failed to load, or it ran out of time. */
  | { readonly kind: 'functionError'; readonly errorType: string; readonly errorMessage: string };

/**
 * Invokes the version under check of a function with an event and waits for its outcome; rejects
 * when the invocation itself failed (no outcome at all). `signal` aborts when the probe's deadline
 * passes. `Name`: the released functions' names (functions/table.ts, RELEASED_FUNCTIONS).
 */
export type Invoke<Name extends string = string> = (
  functionName: Name,
  event: unknown,
  signal: AbortSignal,
) => Promise<InvocationOutcome>;
