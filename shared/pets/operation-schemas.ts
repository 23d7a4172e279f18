import * as z from 'zod/mini';
import type { OperationId } from '../functions';
import { LIST_PETS_REQUEST } from './list-pets-query';
import { IdempotencyKeyHeader } from './idempotency';
import { NewPet, NoQuery, Pet, PetIdPath } from './schema';

/**
 * What each operation takes and answers: the handlers validate their requests with these, and
 * the interface description (openapi/document.ts) declares the same schemas.
 */
export const OPERATION_SCHEMAS = {
  listPets: { request: LIST_PETS_REQUEST, success: { status: 200, body: z.array(Pet) } },
  createPet: { request: { query: NoQuery, headers: z.object({ 'Idempotency-Key': IdempotencyKeyHeader }), body: NewPet }, success: { status: 201, body: Pet } },
  getPet: { request: { query: NoQuery, path: PetIdPath }, success: { status: 200, body: Pet } },
} as const satisfies Record<OperationId, { request: { query: z.ZodMiniType; path?: z.ZodMiniType; headers?: z.ZodMiniObject; body?: z.ZodMiniType }; success: { status: number; body: z.ZodMiniType } }>;
