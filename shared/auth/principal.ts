import type { PlanName, RateLimits } from '../limits/plans';

/** Who is calling, as far as the service needs to know: never the key itself. */
export interface Principal {
  /** A stable, non-secret identifier of the key (a prefix of its SHA-256), safe to log and count by. */
  readonly keyId: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
}
