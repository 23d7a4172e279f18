import { z } from 'zod';

/**
 * The shapes of the pet store interface: the single source of truth for request validation,
 * the TypeScript types and the OpenAPI document. Messages are written for API clients; the
 * validation layer prefixes each with where it failed (`body.name: ...`).
 */

/** Largest id any JSON client, JavaScript included, reads exactly: 2^53 - 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const NAME_MAX_LENGTH = 100;
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export const PetStatus = z.enum(PET_STATUSES, { error: `must be one of ${PET_STATUSES.join(', ')}` });
export type PetStatus = z.infer<typeof PetStatus>;
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** A positive integer no larger than 2^53 - 1 (z.int() itself keeps to the safe range). */
export const Identifier = z.int({ error: `must be an integer from 1 to ${MAX_ID}` }).min(1, `must be an integer from 1 to ${MAX_ID}`);

/** 1 to 100 characters (Unicode code points, as JSON Schema counts them) once trimmed. */
export const PetName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty or only white space')
  .refine((name) => name.isWellFormed(), 'must be valid Unicode text (it holds a lone surrogate)')
  .refine((name) => codePointLength(name) <= NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`);

/** Request body of createPet. Unknown fields are refused, so a typo such as `staus` is not dropped. */
export const NewPet = z.strictObject({
  name: PetName,
  categoryId: Identifier,
  status: PetStatus.default(DEFAULT_PET_STATUS),
});
export type NewPet = z.output<typeof NewPet>;

export const Pet = z.strictObject({
  id: Identifier,
  name: z.string(),
  categoryId: Identifier,
  status: PetStatus,
});
export type Pet = z.output<typeof Pet>;

/** Query values arrive as strings; only plain decimal digits are integers here ("1e1", " 5", "0x10" are not). */
const pageSize = z
  .string()
  .regex(/^[0-9]{1,4}$/, `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`)
  .transform(Number)
  .pipe(
    z
      .int()
      .min(PAGE_SIZE.min, `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`)
      .max(PAGE_SIZE.max, `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`),
  );

export const ListPetsQuery = z.strictObject({
  limit: pageSize.default(PAGE_SIZE.default),
  status: PetStatus.optional(),
  /** Opaque; checked by shared/pets/cursor.ts. */
  cursor: z.string().min(1, 'must not be empty').optional(),
});
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

/** `petId` in the path: canonical decimal digits of a positive safe integer. */
export const PetIdPath = z.strictObject({
  petId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, `must be an integer from 1 to ${MAX_ID}`)
    .transform(Number)
    .pipe(Identifier),
});
export type PetIdPath = z.output<typeof PetIdPath>;

/** No query parameters at all. */
export const NoQuery = z.strictObject({});

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}
