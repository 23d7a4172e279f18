import { requestPart, type CheckedValue } from '../validation/request-schema';
import { checkInteger, checkNoOtherMembers, checkObject, checkString, checkText, UNNAMED_MESSAGE } from '../validation/value-checks';
import { checkStatus } from './field-checks';
import { CURSOR_EMPTY_MESSAGE, PAGE_SIZE, PAGE_SIZE_MESSAGE, PAGE_SIZE_TEXT } from './fields';
import type { ListPetsQuery } from './list-pets-query';

/** The query's parameters, as ListPetsQuery names them (test/unit/request-checks.test.ts holds the two alike). */
const QUERY_MEMBERS: ReadonlySet<string> = new Set(['limit', 'status', 'cursor']);

/** What listPets takes, checked as LIST_PETS_REQUEST's schemas (list-pets-query.ts) check it, without building them. */
export const LIST_PETS_CHECKS = {
  query: requestPart<ListPetsQuery>((input, issues) => {
    if (!checkObject(input, issues)) return undefined;
    // Each member read once, as zod reads it.
    const { limit, status, cursor } = input;
    const query: CheckedValue<ListPetsQuery> = { limit: PAGE_SIZE.default };
    // Only the range can fail once the digits matched (zod's int there names no message of its own).
    if (limit !== undefined && checkText(limit, ['limit'], PAGE_SIZE_TEXT, PAGE_SIZE_MESSAGE, issues)) query.limit = checkInteger(Number(limit), ['limit'], PAGE_SIZE, PAGE_SIZE_MESSAGE, issues);
    // An optional member given as undefined stays in the query, as zod leaves it.
    if ('status' in input) query.status = status === undefined ? undefined : checkStatus(status, ['status'], issues);
    if ('cursor' in input) {
      if (cursor === undefined) query.cursor = undefined;
      else if (checkString(cursor, ['cursor'], UNNAMED_MESSAGE, issues, CURSOR_EMPTY_MESSAGE)) {
        if (cursor.length === 0) issues.push({ path: ['cursor'], message: CURSOR_EMPTY_MESSAGE });
        query.cursor = cursor;
      }
    }
    checkNoOtherMembers(input, QUERY_MEMBERS, issues);
    return query;
  }),
};
