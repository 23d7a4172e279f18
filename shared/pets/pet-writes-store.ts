import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbPetWrites, type PetWrites } from './pet-writes';

/** The pet writes of createPet, created once per container (the reads: ./pet-reads-store.ts). */
export const petWrites: PetWrites = new DynamoDbPetWrites(dynamoDbClient, config.tableName);
