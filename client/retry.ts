/**
 * How the client retries what the interface asks clients to retry (429 and 503): wait at least
 * `Retry-After`, plus an exponentially growing random delay ("full jitter"), so that clients
 * refused together do not all come back at the same instant. A request that is safe to repeat (a
 * read, or a create with its `Idempotency-Key`) is also retried when no answer came at all (a
 * dropped connection, a lost answer), and a create on 409 `idempotency_in_progress`.
 */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  readonly maxRetries: number;
  /** The jitter range of the first retry; it doubles with each retry. */
  readonly baseDelayMs: number;
  /** The largest jitter range. */
  readonly maxJitterMs: number;
  /** A longer `Retry-After` (a used-up daily limit, a suspended key) is handed to the caller instead of waited out. */
  readonly maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 250,
  maxJitterMs: 8_000,
  maxWaitMs: 60_000,
};

export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Reads, and writes named by an `Idempotency-Key`: sending them again cannot do anything twice. */
export function isSafeToRepeat(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
}

/** 409 comes only to a request with an `Idempotency-Key`: another one with the key is being written. */
const retriedStatus = (status: number, request: Request): boolean =>
  RETRIED_STATUSES.has(status) || (status === 409 && request.headers.has('idempotency-key'));

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3);
 * undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The wait before retry number `retry` (0 for the first), or undefined to give up and answer. */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfter: number | undefined,
  random: () => number,
): number | undefined {
  if (retry >= policy.maxRetries) return undefined;
  const jitterRange = Math.min(policy.maxJitterMs, policy.baseDelayMs * 2 ** retry);
  const delay = (retryAfter ?? 0) + Math.floor(random() * jitterRange);
  return delay > policy.maxWaitMs ? undefined : delay;
}

export interface RetryingFetchOptions {
  readonly policy?: RetryPolicy;
  readonly fetch?: (request: Request) => Promise<Response>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
}

/**
 * A fetch that retries 429 and 503 (and a create's 409, and a safe request that got no answer) by
 * the policy; any other answer (and the last one, or the last failure) is returned.
 */
export function retryingFetch(options: RetryingFetchOptions = {}): (request: Request) => Promise<Response> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  return async function fetchWithRetries(request: Request): Promise<Response> {
    for (let retry = 0; ; retry += 1) {
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        // No answer: a repeatable request is sent again; the caller's own abort is not retried.
        const delay =
          isSafeToRepeat(request) && !request.signal.aborted
            ? retryDelayMs(policy, retry, undefined, random)
            : undefined;
        if (delay === undefined) throw error;
        await sleep(delay);
        continue;
      }
      if (!retriedStatus(response.status, request)) return response;
      const delay = retryDelayMs(policy, retry, retryAfterMs(response.headers.get('retry-after'), now()), random);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
