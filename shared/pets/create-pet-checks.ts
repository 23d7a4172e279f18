import { requestPart, type RequestHeadersSchema, type RequestIssue } from '../validation/request-schema';
import { checkNoOtherMembers, checkObject, checkString, checkText, type Path } from '../validation/value-checks';
import { checkIdentifier, checkStatus } from './field-checks';
import { DEFAULT_PET_STATUS } from './fields';
import { IDEMPOTENCY_KEY_MESSAGE, IDEMPOTENCY_KEY_TEXT, idempotencyKeyOf } from './idempotency';
import type { CreatePetHeaders, NewPet } from './new-pet';
import { NO_QUERY_CHECK } from './no-query-check';
import { NAME_EMPTY_MESSAGE, NAME_RULES, NAME_TYPE_MESSAGE } from './pet-name-rules';

/** The body's members and the headers read, as NewPet and CREATE_PET_REQUEST name them (test/unit/request-checks.test.ts holds them alike). */
const NEW_PET_MEMBERS: ReadonlySet<string> = new Set(['name', 'categoryId', 'status']);

/** What createPet takes, checked as CREATE_PET_REQUEST's schemas (new-pet.ts) check it, without building them. */
export const CREATE_PET_CHECKS = {
  query: NO_QUERY_CHECK,
  headers: {
    names: ['Idempotency-Key'],
    ...requestPart<CreatePetHeaders>((input, issues) => {
      if (!checkObject(input, issues)) return undefined;
      // Not strict: a header other than the declared ones is left out, not refused.
      if (!('Idempotency-Key' in input)) return {};
      const text = input['Idempotency-Key'];
      if (text === undefined) return { 'Idempotency-Key': undefined };
      return checkText(text, ['Idempotency-Key'], IDEMPOTENCY_KEY_TEXT, IDEMPOTENCY_KEY_MESSAGE, issues) ? { 'Idempotency-Key': idempotencyKeyOf(text) } : undefined;
    }),
  } satisfies RequestHeadersSchema,
  body: requestPart<NewPet>((input, issues) => {
    if (!checkObject(input, issues)) return undefined;
    const name = checkName(input.name, ['name'], issues);
    const categoryId = checkIdentifier(input.categoryId, ['categoryId'], issues);
    const given = input.status;
    const status = given === undefined ? DEFAULT_PET_STATUS : checkStatus(given, ['status'], issues);
    checkNoOtherMembers(input, NEW_PET_MEMBERS, issues);
    return { name, categoryId, status };
  }),
};

/** The name trimmed, then its rules (pet-name-rules.ts), each checked. */
function checkName(value: unknown, path: Path, issues: RequestIssue[]): string | undefined {
  if (!checkString(value, path, NAME_TYPE_MESSAGE, issues, NAME_EMPTY_MESSAGE)) return undefined;
  const name = value.trim();
  if (name.length === 0) issues.push({ path, message: NAME_EMPTY_MESSAGE });
  for (const rule of NAME_RULES) if (!rule.holds(name)) issues.push({ path, message: rule.message });
  return name;
}
