/**
 * How the client retries what the interface asks clients to retry (429 and 503): wait at least
 * `Retry-After`, plus an exponentially growing random delay ("full jitter"), so that clients
 * refused together do not all come back at the same instant.
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

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 250, maxJitterMs: 8_000, maxWaitMs: 60_000 };

export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

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
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfter: number | undefined, random: () => number): number | undefined {
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

/** A fetch that retries 429 and 503 by the policy; any other answer (and the last one) is returned. */
export function retryingFetch(options: RetryingFetchOptions = {}): (request: Request) => Promise<Response> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  return async function fetchWithRetries(request: Request): Promise<Response> {
    for (let retry = 0; ; retry += 1) {
      const response = await send(request.clone());
      if (!RETRIED_STATUSES.has(response.status)) return response;
      const delay = retryDelayMs(policy, retry, retryAfterMs(response.headers.get('retry-after'), now()), random);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
