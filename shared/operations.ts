/**
 * The operations of the interface, by name: the one list the domain (what each takes and answers,
 * shared/pets/operation-schemas.ts) and the HTTP layer (where each lives, shared/http/routes.ts)
 * both name them from, so the domain imports nothing of HTTP.
 */
export const OPERATION_IDS = ['listPets', 'createPet', 'getPet'] as const;

export type OperationId = (typeof OPERATION_IDS)[number];
