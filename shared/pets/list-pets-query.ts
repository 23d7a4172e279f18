import * as z from 'zod/mini';
import { describeAs, described } from './describe';
import { CURSOR_EMPTY_MESSAGE, PAGE_SIZE, PAGE_SIZE_MESSAGE, PAGE_SIZE_TEXT, PLAIN_DECIMAL_RULE } from './fields';
import { PetStatus } from './pet-status';

// The query of listPets (its function checks it with the checks generated from these schemas: functions/listPets/request-checks.generated.ts).

/**
 * Query values arrive as strings; only canonical decimal digits are integers here ("1e1", " 5",
 * "0x10" and a leading zero, "01", are not).
 */
const pageSize = z.pipe(
  z.pipe(z.string().check(z.regex(PAGE_SIZE_TEXT, PAGE_SIZE_MESSAGE)), z.transform(Number)),
  z.int().check(z.minimum(PAGE_SIZE.min, PAGE_SIZE_MESSAGE), z.maximum(PAGE_SIZE.max, PAGE_SIZE_MESSAGE)),
);

export const ListPetsQuery = z.strictObject({
  limit: described(z._default(pageSize, PAGE_SIZE.default), {
    description: `Maximum number of animals to return. ${PLAIN_DECIMAL_RULE}`,
    override: describeAs({
      type: 'integer',
      minimum: PAGE_SIZE.min,
      maximum: PAGE_SIZE.max,
      default: PAGE_SIZE.default,
    }),
  }),
  status: described(z.optional(PetStatus), { description: 'Returns only animals with this availability status.' }),
  /** Opaque; checked by shared/pets/cursor.ts. */
  cursor: described(z.optional(z.string().check(z.minLength(1, CURSOR_EMPTY_MESSAGE))), {
    description:
      'Opaque position from the `Link: <...>; rel="next"` header of the previous page; never build one by hand. ' +
      'Beyond what the schema states: only a cursor the service gave, for a listing with the same `status` filter, is accepted, ' +
      'exactly as given; any other is a 400.',
  }),
});
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

/** What listPets takes (its declaration, functions/listPets/operation.ts, gives it to the checks and the interface description). */
export const LIST_PETS_REQUEST = { query: ListPetsQuery } as const;
