import { requestPart } from '../validation/request-schema';
import { checkNoOtherMembers, checkObject } from '../validation/value-checks';

/** No query parameters at all, checked as NoQuery (no-query.ts) checks it. */
export const NO_QUERY_CHECK = requestPart<Record<string, never>>((input, issues) => {
  if (checkObject(input, issues)) checkNoOtherMembers(input, [], issues);
  return {};
});
