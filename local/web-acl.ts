import { now } from '../shared/clock';
import { EDGE_LIMITS } from '../shared/limits/edge-limits';

/**
 * The local stand-in for the stage's WAF web ACL (infra/waf.ts): per client address, requests
 * without an Authorization header and all requests, each against its per-minute limit. AWS WAF
 * counts in a window that slides; this counts in calendar minutes, which is close enough to try
 * a client's behaviour against. Kept in memory: it is one process.
 */
export class LocalWebAcl {
  #minute = -1;
  readonly #withoutAuthorization = new Map<string, number>();
  readonly #any = new Map<string, number>();

  /** Counts the request; false when the address is over a limit (the WAF's 429). */
  admit(address: string, hasAuthorization: boolean): boolean {
    const minute = Math.floor(now() / 60_000);
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#withoutAuthorization.clear();
      this.#any.clear();
    }
    if (!countWithin(this.#any, address, EDGE_LIMITS.anyRequestPerMinute)) return false;
    return (
      hasAuthorization || countWithin(this.#withoutAuthorization, address, EDGE_LIMITS.withoutAuthorizationPerMinute)
    );
  }
}

function countWithin(counts: Map<string, number>, address: string, limit: number): boolean {
  const count = (counts.get(address) ?? 0) + 1;
  counts.set(address, count);
  return count <= limit;
}
