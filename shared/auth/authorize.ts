import type { CallDeadline } from '../dynamodb/call-deadline';
import type { ApiProblem } from '../errors';
import { STANDARD_PLAN_LIMITS } from '../limits/plans';
import type { RateLimiter, RateLimitStatus } from '../limits/rate-limiter';
import { AUTHORIZER_RESULT_TTL_SECONDS } from './authorizer-contract';
import type { BearerCredential } from './bearer';
import type { KeyRegistry } from './key-registry';
import type { Principal } from './principal';

/**
 * The authorizer's decision for one request, before API Gateway's key check and the operation:
 * - a key the registry knows is allowed, with its principal (its own limits are counted by the
 *   operation, on every request: this decision is cached);
 * - anything else (no, malformed or unknown key) is counted against the client address under the
 *   Free limits, so that guessing keys is throttled: unauthorized until the address has used up
 *   that allowance, then refused (429, or a suspension if it keeps on).
 * API Gateway keeps a refusal for its cache's TTL, whatever the window: the same request is
 * refused again until then, so its Retry-After is never shorter than that. (The address itself,
 * with another token, starts afresh when the window ends.)
 */
export type Authorization =
  | { readonly outcome: 'allowed'; readonly principal: Principal; readonly apiKey: string }
  | { readonly outcome: 'unauthorized' }
  | { readonly outcome: 'refused'; readonly problem: ApiProblem; readonly rateLimit: RateLimitStatus };

export interface AuthorizeDependencies {
  readonly registry: Pick<KeyRegistry, 'resolve'>;
  readonly limiter: Pick<RateLimiter, 'check'>;
  readonly deadline?: CallDeadline | undefined;
  /** When the request arrived at the gateway (`requestTimeEpoch`): the suspension rule counts by it. */
  readonly arrivedAt?: number | undefined;
}

/** The subject under which requests without a valid key are counted. */
export const addressSubject = (address: string): string => `ip#${address}`;

export async function authorize(
  credential: BearerCredential,
  address: string,
  { registry, limiter, deadline, arrivedAt }: AuthorizeDependencies,
): Promise<Authorization> {
  if (credential.kind === 'token') {
    const principal = await registry.resolve(credential.token, deadline);
    if (principal !== undefined) return { outcome: 'allowed', principal, apiKey: credential.token };
  }
  const decision = await limiter.check(addressSubject(address), STANDARD_PLAN_LIMITS.free, deadline, arrivedAt);
  if (decision.refusal === undefined) return { outcome: 'unauthorized' };
  const suspended = decision.refusal.code === 'key_suspended';
  return {
    outcome: 'refused',
    rateLimit: decision.status,
    problem: {
      status: 429,
      code: decision.refusal.code,
      message: suspended
        ? 'This address is suspended for a while: it kept sending requests without a valid API key after being refused. Retry after the time in Retry-After.'
        : 'Too many requests without a valid API key from this address; retry after the time in Retry-After.',
      retryAfterSeconds: Math.max(decision.refusal.retryAfterSeconds ?? 1, AUTHORIZER_RESULT_TTL_SECONDS),
    },
  };
}
