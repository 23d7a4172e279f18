import type { CallDeadline } from '../dynamodb/call-deadline';
import { NotFoundError } from '../errors';
import type { CursorPosition } from './cursor';
import type { PetStatus } from './pet-status';
import type { IdempotencyKey } from './idempotency';
import type { PetReads } from './pet-reads';
import type { CreatedOnce, PendingPet, PetWrites } from './pet-writes';
import type { ListPetsQuery, Pet } from './schema';

/**
 * The pet store's use cases: plain functions over the repository's reads or writes (each takes the
 * part it uses: a function bundles no other), with no knowledge of HTTP or Lambda.
 */
export interface ReadingDependencies {
  readonly pets: PetReads;
}

export interface WritingDependencies {
  readonly pets: PetWrites;
}

/** Listing also signs and reads page cursors (shared/pets/cursor-secrets.ts): only listPets holds their keys. */
export interface ListingDependencies extends ReadingDependencies {
  readonly cursors: PageCursors;
}

export interface PageCursors {
  /** Starts reading the keys if they must be read, without waiting. */
  prepare(): void;
  encode(position: CursorPosition, deadline?: CallDeadline): Promise<string>;
  /** Throws a 400 for a cursor that is malformed, altered, signed with no known key or made for another filter. */
  decode(cursor: string, status: PetStatus | undefined, deadline?: CallDeadline): Promise<CursorPosition>;
}

export interface CreateOptions {
  readonly deadline?: CallDeadline;
  /**
   * Settles when the pet may be written (e.g. the request was admitted by the rate limiter);
   * a rejection stops the create before it writes. The id is taken meanwhile.
   */
  readonly beforeWrite?: Promise<unknown>;
  /** Makes the create happen at most once per live key (shared/pets/idempotency.ts). */
  readonly idempotencyKey?: IdempotencyKey | undefined;
}

export interface PetListing {
  readonly pets: Pet[];
  /** Cursor for the next page; undefined on the last page. */
  readonly nextCursor: string | undefined;
}

export async function listPets(
  deps: ListingDependencies,
  query: ListPetsQuery,
  deadline?: CallDeadline,
): Promise<PetListing> {
  // When the keys must be read (a cold start, or after their maximum age), the read overlaps the
  // query; a page that needs no cursor neither waits for it nor fails without it.
  deps.cursors.prepare();
  const { afterId, newestId } =
    query.cursor === undefined
      ? { afterId: 0, newestId: undefined }
      : await deps.cursors.decode(query.cursor, query.status, deadline);
  const page = await deps.pets.list({ afterId, limit: query.limit, status: query.status, newestId }, deadline);
  const last = page.pets.at(-1);
  // The page's bound goes with its cursor: the next page reaches at least the pet that made this one say more follow.
  const nextCursor =
    page.hasMore && last !== undefined
      ? await deps.cursors.encode({ afterId: last.id, status: query.status, newestId: page.newestId }, deadline)
      : undefined;
  return { pets: page.pets, nextCursor };
}

/**
 * A new pet (or the promise of it: a request's body, judged once the request is admitted); with an
 * idempotency key, the pet of the key's earlier create when there is one (`replayed`).
 */
export async function createPet(
  deps: WritingDependencies,
  newPet: PendingPet,
  options: CreateOptions = {},
): Promise<CreatedOnce> {
  const { idempotencyKey, ...writeOptions } = options;
  if (idempotencyKey !== undefined) return deps.pets.createOnce(newPet, idempotencyKey, writeOptions);
  return { pet: await deps.pets.create(newPet, writeOptions), replayed: false };
}

export async function getPet(deps: ReadingDependencies, id: number, deadline?: CallDeadline): Promise<Pet> {
  const pet = await deps.pets.get(id, deadline);
  if (pet === undefined) throw new NotFoundError(`No pet has the id ${id}.`);
  return pet;
}
