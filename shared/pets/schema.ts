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

export const PetStatus = z
  .enum(PET_STATUSES, { error: `must be one of ${PET_STATUSES.join(', ')}` })
  .meta({ description: 'Availability of the animal.' });
export type PetStatus = z.infer<typeof PetStatus>;
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** A positive integer no larger than 2^53 - 1 (z.int() itself keeps to the safe range). */
export const Identifier = z
  .int({ error: `must be an integer from 1 to ${MAX_ID}` })
  .min(1, `must be an integer from 1 to ${MAX_ID}`)
  .meta({ format: 'int64' });

/** 1 to 100 characters (Unicode code points, as JSON Schema counts them) once trimmed. */
export const PetName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty or only white space')
  .refine((name) => name.isWellFormed(), 'must be valid Unicode text (it holds a lone surrogate)')
  .refine((name) => codePointLength(name) <= NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
  // The refinements above are invisible to JSON Schema; maxLength counts code points there too.
  .meta({ maxLength: NAME_MAX_LENGTH, description: "The animal's name; leading and trailing white space is trimmed." });

/** Request body of createPet. Unknown fields are refused, so a typo such as `staus` is not dropped. */
export const NewPet = z
  .strictObject({
    name: PetName,
    categoryId: Identifier.meta({ description: 'Identifier of the category the animal belongs to.' }),
    status: PetStatus.default(DEFAULT_PET_STATUS),
  })
  .meta({ description: 'An animal to add. Unknown fields are refused.', examples: [{ name: 'Rex', categoryId: 1, status: 'available' }] });
export type NewPet = z.output<typeof NewPet>;

export const Pet = z
  .strictObject({
    id: Identifier.meta({ description: 'Unique identifier assigned by the service on creation; never reused, increasing.' }),
    name: z.string().min(1).meta({ maxLength: NAME_MAX_LENGTH, description: "The animal's name." }),
    categoryId: Identifier.meta({ description: 'Identifier of the category the animal belongs to.' }),
    status: PetStatus,
  })
  .meta({ description: 'An animal of the store.', examples: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] });
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
  limit: pageSize.default(PAGE_SIZE.default).meta({
    description: 'Maximum number of animals to return.',
    override: describeAs({ type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default }),
  }),
  status: PetStatus.optional().meta({ description: 'Returns only animals with this availability status.' }),
  /** Opaque; checked by shared/pets/cursor.ts. */
  cursor: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .meta({ description: 'Opaque position from the `Link: <...>; rel="next"` header of the previous page; never build one by hand.' }),
});
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

/** `petId` in the path: canonical decimal digits of a positive safe integer. */
export const PetIdPath = z.strictObject({
  petId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, `must be an integer from 1 to ${MAX_ID}`)
    .transform(Number)
    .pipe(Identifier)
    .meta({
      description: 'The identifier of the animal.',
      override: describeAs({ type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID }),
    }),
});
export type PetIdPath = z.output<typeof PetIdPath>;

/**
 * For the interface description (zod-openapi's `override`): a parameter that arrives as text is
 * described as what it means to a client, replacing the string schema zod would describe.
 */
function describeAs(meaning: Record<string, unknown>) {
  return function replaceSchema({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, meaning);
  };
}

/** No query parameters at all. */
export const NoQuery = z.strictObject({});

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}
