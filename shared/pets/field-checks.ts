import type { RequestIssue } from '../validation/request-schema';
import { checkInteger, checkOneOf, type Path } from '../validation/value-checks';
import { ID_MESSAGE, PET_STATUSES, STATUS_MESSAGE } from './fields';
import type { PetStatus } from './pet-status';

// The fields several requests take, checked as their zod schemas check them (identifier.ts, pet-status.ts).
// An identifier's largest value, 2^53 - 1, is the safe integers' (checkInteger).

export const checkIdentifier = (value: unknown, path: Path, issues: RequestIssue[]): number | undefined =>
  checkInteger(value, path, { min: 1 }, ID_MESSAGE, issues);

export const checkStatus = (value: unknown, path: Path, issues: RequestIssue[]): PetStatus | undefined =>
  checkOneOf(value, path, PET_STATUSES, STATUS_MESSAGE, issues);
