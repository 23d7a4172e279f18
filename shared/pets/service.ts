import type { CallDeadline } from '../dynamodb/call-deadline';
import { NotFoundError } from '../errors';
import type { CursorCodec } from './cursor';
import type { IdempotencyKey } from './idempotency';
import type { CreatedOnce, PetRepository } from './repository';
import type { ListPetsQuery, NewPet, Pet } from './schema';

/** The pet store's use cases: plain functions over a repository, with no knowledge of HTTP or Lambda. */
export interface PetServiceDependencies {
  readonly pets: PetRepository;
  readonly cursors: CursorCodec;
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

export async function listPets(deps: PetServiceDependencies, query: ListPetsQuery, deadline?: CallDeadline): Promise<PetListing> {
  const afterId = query.cursor === undefined ? 0 : deps.cursors.decode(query.cursor, query.status).afterId;
  const page = await deps.pets.list({ afterId, limit: query.limit, status: query.status }, deadline);
  const last = page.pets.at(-1);
  const nextCursor =
    page.hasMore && last !== undefined ? deps.cursors.encode({ afterId: last.id, status: query.status }) : undefined;
  return { pets: page.pets, nextCursor };
}

/** A new pet; with an idempotency key, the pet of the key's earlier create when there is one (`replayed`). */
export async function createPet(deps: PetServiceDependencies, newPet: NewPet, options: CreateOptions = {}): Promise<CreatedOnce> {
  const { idempotencyKey, ...writeOptions } = options;
  if (idempotencyKey !== undefined) return deps.pets.createOnce(newPet, idempotencyKey, writeOptions);
  return { pet: await deps.pets.create(newPet, writeOptions), replayed: false };
}

export async function getPet(deps: PetServiceDependencies, id: number, deadline?: CallDeadline): Promise<Pet> {
  const pet = await deps.pets.get(id, deadline);
  if (pet === undefined) throw new NotFoundError(`No pet has the id ${id}.`);
  return pet;
}
