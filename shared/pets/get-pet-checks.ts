import { requestPart } from '../validation/request-schema';
import { checkNoOtherMembers, checkObject, checkText } from '../validation/value-checks';
import { checkIdentifier } from './field-checks';
import { ID_MESSAGE, PET_ID_TEXT } from './fields';
import { NO_QUERY_CHECK } from './no-query-check';
import type { PetIdPath } from './pet-id-path';

/** The path's parameters, as PetIdPath names them (test/unit/request-checks.test.ts holds the two alike). */
const PATH_MEMBERS: ReadonlySet<string> = new Set(['petId']);

/** What getPet takes, checked as GET_PET_REQUEST's schemas (pet-id-path.ts) check it, without building them. */
export const GET_PET_CHECKS = {
  query: NO_QUERY_CHECK,
  path: requestPart<PetIdPath>((input, issues) => {
    if (!checkObject(input, issues)) return undefined;
    const text = input.petId;
    const petId = checkText(text, ['petId'], PET_ID_TEXT, ID_MESSAGE, issues) ? checkIdentifier(Number(text), ['petId'], issues) : undefined;
    checkNoOtherMembers(input, PATH_MEMBERS, issues);
    return { petId };
  }),
};
