import type { RequestIssue } from './request-schema';

/**
 * The checks of zod's object schemas that the generated request checks call
 * (codegen/request-checks.ts writes the rest inline), with zod's issues in zod's order:
 * test/codegen/operation-request-checks.test.ts holds them to zod's answers. An issue carries zod's code only
 * where the request validation reads it (a wrong type, unknown members); elsewhere the message
 * says it all.
 */

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
export function checkNoOtherMembers(
  input: Record<string, unknown>,
  known: ReadonlySet<string>,
  issues: RequestIssue[],
): void {
  const unknown: string[] = [];
  for (const key in input) if (!known.has(key)) unknown.push(key);
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', keys: unknown, path: [], message: UNNAMED_MESSAGE });
}
