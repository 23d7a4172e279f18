import type { PlanName, RateLimits } from '../limits/plans';

/** Who is calling, as far as the service needs to know: never the key itself. */
export interface Principal {
  /** A stable, non-secret identifier of the key (a prefix of its SHA-256), safe to log and count by. */
  readonly keyId: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
  /**
   * Set for the principal of the release key alone: its pets live apart, in partitions no
   * customer's request reaches (shared/pets/pet-space.ts), and its requests stay out of the
   * customers' metrics. Absent for every customer's key.
   */
  readonly petSpace?: ReservedPetSpace;
}

/** The one pet space besides the customers': the release check's (docs/release-check.md). */
export type ReservedPetSpace = 'releases';
export const RELEASES_PET_SPACE: ReservedPetSpace = 'releases';
