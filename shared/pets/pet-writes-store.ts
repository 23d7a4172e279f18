import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbPetWrites, type PetWrites } from './pet-writes';
import type { PetSpace } from './pet-space';

/** The pet writes of createPet, one per pet space (./pet-space.ts), created once per container (the reads: ./pet-reads-store.ts). */
export const petWrites: Readonly<Record<PetSpace, PetWrites>> = {
  customers: new DynamoDbPetWrites(dynamoDbClient, config.tableName),
  releases: new DynamoDbPetWrites(dynamoDbClient, config.tableName, { space: 'releases' }),
};
