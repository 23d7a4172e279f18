import * as z from 'zod/mini';
import { described } from './describe';
import { DEFAULT_PET_STATUS, NAME_MAX_LENGTH } from './fields';
import { CategoryId } from './identifier';
import { IdempotencyKeyHeader } from './idempotency-key-header';
import { NAME_PATTERNS } from './name-pattern';
import { NoQuery } from './no-query';
import { NAME_EMPTY_MESSAGE, NAME_RULES, NAME_TYPE_MESSAGE } from './pet-name-rules';
import { PetStatus } from './pet-status';

/**
 * What createPet takes (its function checks it with the checks generated from these schemas: functions/createPet/request-checks.generated.ts).
 * Messages are written for API clients; the validation layer prefixes each with where it failed
 * (`body.name: ...`).
 */

/** 1 to 100 characters (Unicode code points, as JSON Schema counts them) once trimmed. */
export const PetName = described(
  z
    .string({ error: NAME_TYPE_MESSAGE })
    .check(
      z.trim(),
      z.minLength(1, NAME_EMPTY_MESSAGE),
      ...NAME_RULES.map(({ holds, message }) => z.refine<string>(holds, message)),
    ),
  // The trim and the refinements are invisible to JSON Schema: the two patterns state the whole rule.
  {
    allOf: NAME_PATTERNS.map((pattern) => ({ pattern })),
    description:
      `The animal's name: 1 to ${NAME_MAX_LENGTH} characters (Unicode code points) once white space is trimmed from both ends, ` +
      "and stored trimmed. White space is ECMAScript's: tab, line feed, vertical tab, form feed, carriage return, space, U+00A0, U+1680, " +
      'U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 and U+FEFF (not U+0085, U+180E or U+200B). The text must be well-formed ' +
      'Unicode (no lone surrogate). Once trimmed it holds no control character (C0, DEL, C1: U+0000 to U+001F, U+007F to U+009F) ' +
      'and no bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), and at least one visible ' +
      'character: format characters (U+200B to U+200D, U+2060, U+FEFF) alone are not a name. The two patterns state this whole ' +
      'rule, read with Unicode semantics as JSON Schema asks.',
  },
);

/** Request body of createPet. Unknown fields are refused, so a typo such as `staus` is not dropped. */
export const NewPet = described(
  z.strictObject({
    name: PetName,
    categoryId: CategoryId,
    status: z._default(PetStatus, DEFAULT_PET_STATUS),
  }),
  {
    description: 'An animal to add. Unknown fields are refused.',
    examples: [{ name: 'Rex', categoryId: 1, status: 'available' }],
  },
);
export type NewPet = z.output<typeof NewPet>;

/** What createPet takes (its declaration, functions/createPet/operation.ts, gives it to the checks and the interface description). */
export const CREATE_PET_REQUEST = {
  query: NoQuery,
  headers: z.object({ 'Idempotency-Key': IdempotencyKeyHeader }),
  body: NewPet,
} as const;
export type CreatePetHeaders = z.output<typeof CREATE_PET_REQUEST.headers>;
