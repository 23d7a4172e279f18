import * as z from 'zod/mini';

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

export const PetStatus = described(z.enum(PET_STATUSES, { error: `must be one of ${PET_STATUSES.join(', ')}` }), {
  description: 'Availability of the animal.',
});
export type PetStatus = z.infer<typeof PetStatus>;
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** A positive integer no larger than 2^53 - 1 (z.int() itself keeps to the safe range). */
export const Identifier = described(
  z.int({ error: `must be an integer from 1 to ${MAX_ID}` }).check(z.minimum(1, `must be an integer from 1 to ${MAX_ID}`)),
  { format: 'int64' },
);

/** 1 to 100 characters (Unicode code points, as JSON Schema counts them) once trimmed. */
export const PetName = described(
  z
    .string({ error: 'must be a string' })
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty or only white space'),
      z.refine((name) => name.isWellFormed(), 'must be valid Unicode text (it holds a lone surrogate)'),
      z.refine((name) => codePointLength(name) <= NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`),
    ),
  // The refinements are invisible to JSON Schema; maxLength counts code points there too.
  { maxLength: NAME_MAX_LENGTH, description: "The animal's name; leading and trailing white space is trimmed." },
);

const CategoryId = described(Identifier, { description: 'Identifier of the category the animal belongs to.' });

/** Request body of createPet. Unknown fields are refused, so a typo such as `staus` is not dropped. */
export const NewPet = described(
  z.strictObject({
    name: PetName,
    categoryId: CategoryId,
    status: z._default(PetStatus, DEFAULT_PET_STATUS),
  }),
  { description: 'An animal to add. Unknown fields are refused.', examples: [{ name: 'Rex', categoryId: 1, status: 'available' }] },
);
export type NewPet = z.output<typeof NewPet>;

export const Pet = described(
  z.strictObject({
    id: described(Identifier, { description: 'Unique identifier assigned by the service on creation; never reused, increasing.' }),
    name: described(z.string().check(z.minLength(1)), { maxLength: NAME_MAX_LENGTH, description: "The animal's name." }),
    categoryId: CategoryId,
    status: PetStatus,
  }),
  { description: 'An animal of the store.', examples: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] },
);
export type Pet = z.output<typeof Pet>;

const pageSizeMessage = `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`;

/** Query values arrive as strings; only plain decimal digits are integers here ("1e1", " 5", "0x10" are not). */
const pageSize = z.pipe(
  z.pipe(z.string().check(z.regex(/^[0-9]{1,4}$/, pageSizeMessage)), z.transform(Number)),
  z.int().check(z.minimum(PAGE_SIZE.min, pageSizeMessage), z.maximum(PAGE_SIZE.max, pageSizeMessage)),
);

export const ListPetsQuery = z.strictObject({
  limit: described(z._default(pageSize, PAGE_SIZE.default), {
    description: 'Maximum number of animals to return.',
    override: describeAs({ type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default }),
  }),
  status: described(z.optional(PetStatus), { description: 'Returns only animals with this availability status.' }),
  /** Opaque; checked by shared/pets/cursor.ts. */
  cursor: described(z.optional(z.string().check(z.minLength(1, 'must not be empty'))), {
    description: 'Opaque position from the `Link: <...>; rel="next"` header of the previous page; never build one by hand.',
  }),
});
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

const petIdMessage = `must be an integer from 1 to ${MAX_ID}`;

/** `petId` in the path: canonical decimal digits of a positive safe integer. */
export const PetIdPath = z.strictObject({
  petId: described(z.pipe(z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,15}$/, petIdMessage)), z.transform(Number)), Identifier), {
    description: 'The identifier of the animal.',
    override: describeAs({ type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID }),
  }),
});
export type PetIdPath = z.output<typeof PetIdPath>;

/**
 * Metadata for the interface description (zod's global registry, which zod-openapi reads), on a
 * copy, so one schema can be described differently where it is used.
 */
function described<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}

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
