import type { Pet } from './schema';

/**
 * How long a found pet is served from an instance's memory. A pet never changes once created (no
 * operation updates or deletes one), so what this may serve is always true today; the bound is
 * for the operations that may come: an update or delete must accept that a getPet shows the pet
 * as it was up to this long before (as a listing may), or turn this cache off.
 */
export const CACHED_PET_MS = 1_000;
/** Pets kept at most, the one read from the table longest ago dropped first (about 200 bytes each). */
export const CACHED_PETS = 1_000;

/**
 * Pets an instance has found, by id: getPet of one popular pet reads its shard once a second per
 * instance, not once a request. A miss is never kept: a pet is found as soon as its create
 * answered (decisions.md), and a kept "no such pet" would break that.
 */
export class FoundPetCache {
  readonly #pets = new Map<number, { readonly pet: Pet; readonly readAt: number }>();

  constructor(private readonly now: () => number) {}

  async pet(id: number, read: () => Promise<Pet | undefined>): Promise<Pet | undefined> {
    const kept = this.#pets.get(id);
    const nowMs = this.now();
    if (kept !== undefined && nowMs - kept.readAt < CACHED_PET_MS) return kept.pet;
    const pet = await read();
    this.#pets.delete(id);
    if (pet === undefined) return undefined;
    this.#pets.set(id, { pet, readAt: nowMs });
    if (this.#pets.size > CACHED_PETS) this.#pets.delete(this.#pets.keys().next().value as number);
    return pet;
  }
}
