import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbPetReads, type PetReads } from './pet-reads';

/**
 * The pet reads of getPet and listPets, created once per container. The writes are wired apart
 * (./pet-writes-store.ts), so that a function bundles only the part of the repository it uses.
 */
export const petReads: PetReads = new DynamoDbPetReads(dynamoDbClient, config.tableName, {
  listingSettleMs: config.listingSettleMs,
  firstPageCache: config.firstPageCache,
});
