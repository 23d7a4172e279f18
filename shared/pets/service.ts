import type { CallDeadline } from '../dynamodb/call-deadline';
import { NotFoundError } from '../errors';
import type { CursorCodec } from './cursor';
import type { PetRepository } from './repository';
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

export function createPet(deps: PetServiceDependencies, newPet: NewPet, options: CreateOptions = {}): Promise<Pet> {
  return deps.pets.create(newPet, options);
}

export async function getPet(deps: PetServiceDependencies, id: number, deadline?: CallDeadline): Promise<Pet> {
  const pet = await deps.pets.get(id, deadline);
  if (pet === undefined) throw new NotFoundError(`No pet has the id ${id}.`);
  return pet;
}
