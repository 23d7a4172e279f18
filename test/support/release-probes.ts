import { RELEASE_PROBES, type ReleasedFunction } from '../../functions/table';
import type { InvocationOutcome } from '../../shared/release-check/invocation';
import { probeName, type CheckProbe } from '../../shared/release-check/probes';
import type { ProbeResult } from '../../shared/release-check/run-release-check';

/** Every probe of the release check, in its order, as the table of functions declares it, with the name its result gives it. */
export const PROBES: readonly (CheckProbe<ReleasedFunction> & { readonly name: string })[] = RELEASE_PROBES.map((probe) => ({ ...probe, name: probeName(probe) }));

/** The check's result when every probe passes but those given, which fail with their reason (by probe name). */
export function resultsWith(failures: Readonly<Record<string, string>> = {}): ProbeResult<ReleasedFunction>[] {
  return PROBES.map(({ functionName, name }) => (failures[name] === undefined ? { name, functionName, passed: true } : { name, functionName, passed: false, reason: failures[name] }));
}

/** A pet as the functions write one. */
export const GOOD_PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

/**
 * What a function gives back when all is well, for one of its probes: the answer the probe expects
 * (an Error body with its code; a page of one pet; a page of the documentation), or the
 * authorizer's Unauthorized.
 */
export function goodOutcomeOf(probe: CheckProbe): InvocationOutcome {
  if (probe.expect === 'refusal') return { kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' };
  const { status, code, body } = probe.expect;
  const text = code !== undefined ? JSON.stringify({ code, message: 'What went wrong.', status }) : body?.kind === 'petPage' ? JSON.stringify([GOOD_PET].slice(0, body.atMost)) : '<!doctype html>';
  return { kind: 'returned', payload: { statusCode: status, headers: { 'Content-Type': code !== undefined || body !== undefined ? 'application/json' : 'text/html' }, body: text } };
}
