import { ERROR_CODES } from '../errors';
import { isPetStatus } from '../pets/fields';

/**
 * The shapes of the answers the check reads, checked without zod (the check's function bundles
 * none): the Error body (shared/http/error-body.ts) and a page of pets (shared/pets/pet.ts). Each
 * says what is wrong, in words that quote nothing of the answer, or undefined when nothing is;
 * test/unit/shared/release-check/run-release-check.test.ts holds them to the schemas' answers.
 */
const ERROR_MEMBERS = ['code', 'message', 'status', 'details'];
const DETAIL_MEMBERS = ['path', 'message'];
const PET_MEMBERS = ['id', 'name', 'categoryId', 'status'];

/** What is wrong with an Error body; `status`, when given, is the HTTP status it came with, which its `status` must repeat. */
export function errorBodyProblem(body: unknown, status?: number): string | undefined {
  if (!isObject(body)) return 'is not a JSON object';
  if (!hasOnly(body, ERROR_MEMBERS)) return 'has a member the Error body has not';
  if (!(ERROR_CODES as readonly unknown[]).includes(body.code)) return 'has no known code';
  if (typeof body.message !== 'string' || body.message.length === 0) return 'has no message';
  if (!Number.isInteger(body.status) || (body.status as number) < 400 || (body.status as number) > 599)
    return 'has no error status';
  if (status !== undefined && body.status !== status) return `says status ${body.status as number}`;
  if (body.details !== undefined && !isDetails(body.details)) return 'has malformed details';
  return undefined;
}

/** What is wrong with a listing's body: a JSON array of at most `limit` pets. */
export function petPageProblem(body: unknown, limit: number): string | undefined {
  if (!Array.isArray(body)) return 'is not a JSON array';
  if (body.length > limit) return `holds ${body.length} pets, more than the limit of ${limit}`;
  const at = body.findIndex((pet) => petProblem(pet) !== undefined);
  return at === -1 ? undefined : `holds a malformed pet at ${at}: it ${petProblem(body[at]) as string}`;
}

/** What is wrong with a Pet. */
export function petProblem(pet: unknown): string | undefined {
  if (!isObject(pet)) return 'is not a JSON object';
  if (!hasOnly(pet, PET_MEMBERS)) return 'has a member a Pet has not';
  if (!isIdentifier(pet.id)) return 'has no valid id';
  if (typeof pet.name !== 'string' || pet.name.length === 0) return 'has no name';
  if (!isIdentifier(pet.categoryId)) return 'has no valid categoryId';
  if (!isPetStatus(pet.status)) return 'has no known status';
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const hasOnly = (value: Record<string, unknown>, members: readonly string[]): boolean =>
  Object.keys(value).every((name) => members.includes(name));
const isIdentifier = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;

function isDetails(details: unknown): boolean {
  return (
    Array.isArray(details) &&
    details.length > 0 &&
    details.every(
      (detail) =>
        isObject(detail) &&
        hasOnly(detail, DETAIL_MEMBERS) &&
        typeof detail.path === 'string' &&
        typeof detail.message === 'string',
    )
  );
}
