import type { Principal, ReservedPetSpace } from '../auth/principal';
import { ITEM_PARTITIONS } from '../dynamodb/table-definition';

/**
 * Whose pets a request reads and writes. Pets have no owner and every key lists every pet, so the
 * release check's own (it creates, gets and lists one each release, docs/release-check.md) live
 * apart, in the `releases` space: partitions and index keys of their own, which no customer's
 * request names (`RELEASES#PET#<n>`, `pets#releases#<n>`, `<status>#releases#<n>`), so no customer
 * lists, gets or counts them; and each expires by TTL a day after it was written. Only the release
 * key's principal is in that space (shared/auth/principal.ts); every other key is in `customers`.
 */
export type PetSpace = 'customers' | ReservedPetSpace;

export const petSpaceOf = (principal: Pick<Principal, 'petSpace'>): PetSpace => principal.petSpace ?? 'customers';

/** How long a release pet is kept (DynamoDB's TTL deletes it some time after, within days). */
export const RELEASE_PET_LIFETIME_SECONDS = 24 * 60 * 60;

interface SpaceKeys {
  /** The table's partition of a shard, before its number: IAM's pattern without its `*`. */
  readonly partitionPrefix: string;
  /** Written into the index keys after their first part: `pets#<here><n>`, `<status>#<here><n>`. */
  readonly indexInfix: string;
  readonly lifetimeSeconds: number | undefined;
}

export const SPACE_KEYS: Readonly<Record<PetSpace, SpaceKeys>> = {
  customers: { partitionPrefix: ITEM_PARTITIONS.pets.slice(0, -1), indexInfix: '', lifetimeSeconds: undefined },
  releases: {
    partitionPrefix: ITEM_PARTITIONS.releasePets.slice(0, -1),
    indexInfix: 'releases#',
    lifetimeSeconds: RELEASE_PET_LIFETIME_SECONDS,
  },
};
