import type { RequestIssue } from './request-schema';

/**
 * The checks of zod's that the request checks (shared/pets/*-checks.ts) repeat by hand, with the
 * same issues in the same order: test/unit/request-checks.test.ts holds them to zod's answers.
 * An issue carries zod's code only where the request validation reads it (a wrong type, unknown
 * members); elsewhere the message says it all.
 */

export type Path = readonly PropertyKey[];

/**
 * zod's message where a schema names none: zod/mini loads no locale. (Classic zod, `import { z }
 * from 'zod'`, sets its English one for every schema once loaded: then zod says more, and the
 * test that holds the checks to zod must not load it.) No client reads it: validate-request.ts
 * words unknown members and a body that is not an object itself, and the rest would need a query,
 * path or header value that is not text.
 */
export const UNNAMED_MESSAGE = 'Invalid input';

/** An object (not an array, not null), as zod's object schemas take first. */
export function checkObject(value: unknown, issues: RequestIssue[]): value is Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
  issues.push({ code: 'invalid_type', path: [], message: UNNAMED_MESSAGE });
  return false;
}

/** A strict object's members other than `known`, in one issue after the members' own (zod's strictObject). */
export function checkNoOtherMembers(input: Record<string, unknown>, known: ReadonlySet<string>, issues: RequestIssue[]): void {
  const unknown: string[] = [];
  for (const key in input) if (!known.has(key)) unknown.push(key);
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', keys: unknown, path: [], message: UNNAMED_MESSAGE });
}

/**
 * A string, or an issue. With `minLengthMessage` (a schema with a minimum length of 1), zod still
 * checks the length of a value that is not a string but has one (an array): a second issue.
 */
export function checkString(value: unknown, path: Path, typeMessage: string, issues: RequestIssue[], minLengthMessage?: string): value is string {
  if (typeof value === 'string') return true;
  issues.push({ code: 'invalid_type', path, message: typeMessage });
  const length = (value as { length?: unknown } | null | undefined)?.length;
  if (minLengthMessage !== undefined && length !== undefined && !((length as number) >= 1)) issues.push({ path, message: minLengthMessage });
  return false;
}

/** A text matching `pattern`, or an issue (zod's string with a regex). */
export function checkText(value: unknown, path: Path, pattern: RegExp, message: string, issues: RequestIssue[]): value is string {
  if (!checkString(value, path, UNNAMED_MESSAGE, issues)) return false;
  if (pattern.test(value)) return true;
  issues.push({ path, message });
  return false;
}

/** An integer from `min` to `max` (at most 2^53 - 1), or issues under one message (zod's int with a minimum and a maximum). */
export function checkInteger(value: unknown, path: Path, range: { readonly min: number; readonly max?: number }, message: string, issues: RequestIssue[]): number | undefined {
  if (!Number.isInteger(value)) {
    issues.push({ code: 'invalid_type', path, message });
    return undefined;
  }
  const integer = value as number;
  // Outside the safe range zod says so, and still checks the minimum and the maximum.
  if (!Number.isSafeInteger(integer)) issues.push({ path, message });
  if (integer < range.min) issues.push({ path, message });
  if (integer > (range.max ?? Infinity)) issues.push({ path, message });
  return integer;
}

/** One of `values`, or an issue (zod's enum). */
export function checkOneOf<const Value extends string>(value: unknown, path: Path, values: readonly Value[], message: string, issues: RequestIssue[]): Value | undefined {
  if (values.includes(value as Value)) return value as Value;
  issues.push({ path, message });
  return undefined;
}
