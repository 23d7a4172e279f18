import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CallDeadline } from '../dynamodb/call-deadline';
import type { IdempotencyKey } from './idempotency';
import { DynamoDbPetReads, type PageRequest, type PetPage, type PetReadOptions, type PetReads } from './pet-reads';
import { DynamoDbPetWrites, type CreatedOnce, type CreateOptions, type PetStoreOptions, type PetWrites } from './pet-writes';
import type { NewPet, Pet } from './schema';

export type { CreatedOnce, CreateOptions } from './pet-writes';
export type { PageRequest, PetPage } from './pet-reads';

/**
 * Where pets are kept: the reads (./pet-reads.ts) and the writes (./pet-writes.ts). The service
 * asks each operation for its part only (pet-reads-store.ts and pet-writes-store.ts wire them), so
 * that getPet and listPets bundle no write and createPet no read; the whole repository serves the
 * tests and the tools.
 */
export interface PetRepository extends PetReads, PetWrites {}

export class DynamoDbPetRepository implements PetRepository {
  readonly #reads: DynamoDbPetReads;
  readonly #writes: DynamoDbPetWrites;

  /** The tools' and tests' repository: unless told otherwise, a listing shows what was just made and keeps no cache. */
  constructor(client: DynamoDBClient, tableName: string, options: PetStoreOptions & PetReadOptions = {}) {
    this.#reads = new DynamoDbPetReads(client, tableName, { listingSettleMs: 0, firstPageCache: false, ...options });
    this.#writes = new DynamoDbPetWrites(client, tableName, options);
  }

  create(pet: NewPet, options?: CreateOptions): Promise<Pet> {
    return this.#writes.create(pet, options);
  }

  createOnce(pet: NewPet, key: IdempotencyKey, options?: CreateOptions): Promise<CreatedOnce> {
    return this.#writes.createOnce(pet, key, options);
  }

  get(id: number, deadline?: CallDeadline): Promise<Pet | undefined> {
    return this.#reads.get(id, deadline);
  }

  list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage> {
    return this.#reads.list(request, deadline);
  }
}
