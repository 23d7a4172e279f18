import { config } from '../config';
import { documentClient } from '../dynamodb/client';
import { CursorCodec } from './cursor';
import { DynamoDbPetRepository } from './repository';
import type { PetServiceDependencies } from './service';

/** The pet store as the handlers use it: created once per container. */
export const petStore: PetServiceDependencies = {
  pets: new DynamoDbPetRepository(documentClient, config.tableName),
  cursors: new CursorCodec(config.cursorSecret),
};
