import * as z from 'zod/mini';
import type { OperationId } from '../functions';
import { LIST_PETS_REQUEST } from './list-pets-query';
import { CREATE_PET_REQUEST } from './new-pet';
import { Pet } from './pet';
import { GET_PET_REQUEST } from './pet-id-path';

/**
 * What each operation takes and answers: the interface description (openapi/document.ts)
 * declares these schemas. The functions check their requests with code held to these schemas'
 * answers (the *-checks.ts modules; test/unit/request-checks.test.ts), and build none of them.
 */
export const OPERATION_SCHEMAS = {
  listPets: { request: LIST_PETS_REQUEST, success: { status: 200, body: z.array(Pet) } },
  createPet: { request: CREATE_PET_REQUEST, success: { status: 201, body: Pet } },
  getPet: { request: GET_PET_REQUEST, success: { status: 200, body: Pet } },
} as const satisfies Record<OperationId, { request: { query: z.ZodMiniType; path?: z.ZodMiniType; headers?: z.ZodMiniObject; body?: z.ZodMiniType }; success: { status: number; body: z.ZodMiniType } }>;
