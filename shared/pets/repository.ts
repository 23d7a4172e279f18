import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbPetReads, type PetReadOptions, type PetReads } from './pet-reads';
import { DynamoDbPetWrites, type PetStoreOptions, type PetWrites } from './pet-writes';

export type { CreatedOnce, PetWriteOptions } from './pet-writes';
export type { PageRequest, PetPage } from './pet-reads';

/**
 * Where pets are kept: the reads (./pet-reads.ts) and the writes (./pet-writes.ts). The service
 * asks each operation for its part only (pet-reads-store.ts and pet-writes-store.ts wire them), so
 * that getPet and listPets bundle no write and createPet no read; the whole repository serves the
 * tests and the tools.
 */
export interface PetRepository extends PetReads, PetWrites {}

/** Every method of the reads and of the writes (declaration merging gives the class their types). */
export interface DynamoDbPetRepository extends PetRepository {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above is the class's own methods, bound in its constructor
export class DynamoDbPetRepository {
  /** The tools' and tests' repository: unless told otherwise, a listing shows what was just made and keeps no cache. */
  constructor(client: DynamoDBClient, tableName: string, options: PetStoreOptions & PetReadOptions = {}) {
    const reads = new DynamoDbPetReads(client, tableName, {
      listingSettleMs: 0,
      firstPageCache: false,
      foundPetCache: false,
      ...options,
    });
    const writes = new DynamoDbPetWrites(client, tableName, options);
    // Each part's methods, bound to it: a method added to the reads or the writes needs no line here.
    for (const part of [reads, writes] as object[]) {
      const methods = part as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(part))) {
        if (name !== 'constructor' && typeof methods[name] === 'function')
          (this as Record<string, unknown>)[name] = (methods[name] as (...args: unknown[]) => unknown).bind(part);
      }
    }
  }
}
