import * as z from 'zod/mini';
import { described, describeAs } from './describe';
import { ID_MESSAGE, MAX_ID, PET_ID_TEXT, PLAIN_DECIMAL_RULE } from './fields';
import { Identifier } from './identifier';
import { NoQuery } from './no-query';

// What getPet takes (its function checks it with the checks generated from these schemas: functions/getPet/request-checks.generated.ts).

/** `petId` in the path: canonical decimal digits of a positive safe integer. */
export const PetIdPath = z.strictObject({
  petId: described(
    z.pipe(z.pipe(z.string().check(z.regex(PET_ID_TEXT, ID_MESSAGE)), z.transform(Number)), Identifier),
    {
      description: `The identifier of the animal. ${PLAIN_DECIMAL_RULE}`,
      override: describeAs({ type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID }),
    },
  ),
});
export type PetIdPath = z.output<typeof PetIdPath>;

/** What getPet takes (its declaration, functions/getPet/operation.ts, gives it to the checks and the interface description). */
export const GET_PET_REQUEST = { query: NoQuery, path: PetIdPath } as const;
