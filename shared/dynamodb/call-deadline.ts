import { setMaxListeners } from 'node:events';
import { WORST_CALL_MS } from './client';

/**
 * When a request's DynamoDB calls must be given up: shortly before the function times out, so
 * the client gets a 503 instead of a killed invocation. A call that starts with time for its
 * worst case (all SDK attempts, timeouts and backoff) needs no abort signal: only then is one
 * made (an AbortSignal and its timer cost more than the rest of a warm request's overhead).
 */
export interface CallDeadline {
  /**
   * The signal to give the next call, or undefined when the SDK's bounds suffice. `worstCallMs`:
   * the longest that call can take, when it is not a DynamoDB call (another client's bounds).
   */
  signalForCall(worstCallMs?: number): AbortSignal | undefined;
}

export class TimedCallDeadline implements CallDeadline {
  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;

  /** `at`: the time (ms since the epoch) by which every call must have ended. */
  constructor(
    private readonly at: number,
    private readonly worstCallMs: number = WORST_CALL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  signalForCall(worstCallMs: number = this.worstCallMs): AbortSignal | undefined {
    if (this.#controller !== undefined) return this.#controller.signal;
    const left = this.at - this.now();
    if (left >= worstCallMs) return undefined;
    const controller = new AbortController();
    // Every call of the request listens to it: a page's shard queries are 8 or more at once, past
    // Node's default warning at 10 listeners (not a leak: each call removes its own when it ends).
    setMaxListeners(64, controller.signal);
    this.#controller = controller;
    this.#timer = setTimeout(
      function abortAtDeadline() {
        controller.abort(new DOMException('The operation ran into the function timeout.', 'TimeoutError'));
      },
      Math.max(1, left),
    );
    return controller.signal;
  }

  /** Call when the request ends. */
  clear(): void {
    clearTimeout(this.#timer); // undefined when no signal was made: clearTimeout(undefined) does nothing
  }
}

/** Give up DynamoDB calls this long before the function's own timeout: a 503 instead of a killed invocation. */
const TIMEOUT_MARGIN_MS = 500;

/**
 * The deadline of one invocation, from its Lambda context (none without one, e.g. a direct call
 * in a test): the SDK's AbortError at that moment is a datastore failure, so the client gets a
 * 503 instead of a killed invocation.
 */
export function deadlineBeforeTimeout(
  context: { getRemainingTimeInMillis?: () => number } | undefined,
): TimedCallDeadline | undefined {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return undefined;
  return new TimedCallDeadline(Date.now() + context.getRemainingTimeInMillis() - TIMEOUT_MARGIN_MS);
}
