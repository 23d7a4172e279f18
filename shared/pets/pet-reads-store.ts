import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbPetReads, type PetReads } from './pet-reads';
import type { PetSpace } from './pet-space';

const readsIn = (space: PetSpace): PetReads =>
  new DynamoDbPetReads(dynamoDbClient, config.tableName, {
    listingSettleMs: config.listingSettleMs,
    firstPageCache: config.firstPageCache,
    foundPetCache: config.foundPetCache,
    listingSets: config.listingSets,
    space,
  });

/**
 * The pet reads of getPet and listPets, one per pet space (./pet-space.ts: the handler takes the
 * caller's), created once per container. The writes are wired apart (./pet-writes-store.ts), so
 * that a function bundles only the part of the repository it uses.
 */
export const petReads: Readonly<Record<PetSpace, PetReads>> = {
  customers: readsIn('customers'),
  releases: readsIn('releases'),
};
