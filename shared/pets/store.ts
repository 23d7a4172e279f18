import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbPetRepository } from './repository';
import type { PetServiceDependencies } from './service';

/**
 * The pet store as the handlers use it: created once per container. The page cursors' keys are
 * listPets' alone (./cursor-store.ts), so that createPet and getPet neither hold nor bundle them.
 */
export const petStore: PetServiceDependencies = {
  pets: new DynamoDbPetRepository(dynamoDbClient, config.tableName),
};
