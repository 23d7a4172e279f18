import { requestPart } from '../validation/request-schema';
import { checkNoOtherMembers, checkObject } from '../validation/value-checks';

const NO_MEMBERS: ReadonlySet<string> = new Set();

/** No query parameters at all, checked as NoQuery (no-query.ts) checks it. */
export const NO_QUERY_CHECK = requestPart<Record<string, never>>((input, issues) => {
  if (checkObject(input, issues)) checkNoOtherMembers(input, NO_MEMBERS, issues);
  return {};
});
