import { AUTHORIZER_UNAUTHORIZED } from '../auth/authorizer-contract';
import { ERROR_CODES, type ErrorCode } from '../errors';
import { errorBodyProblem } from './answer-shapes';
import type { InvocationOutcome } from './invocation';

/**
 * Whether a function's outcome is the answer its probe expects: undefined when it is, else the
 * reason it is not, in one line that quotes nothing the function did not write itself (an error
 * code of the table, a function error's own message, cut short): never the request's token.
 */
export interface AnswerExpectation {
  readonly status: number;
  /** An error status: the code its Error body must carry. */
  readonly code?: ErrorCode;
  /** A success: what is wrong with its body (as JSON), if anything. */
  readonly body?: (body: unknown) => string | undefined;
}

/** Judges an operation's or the documentation's answer: an API Gateway proxy result. */
export function judgeAnswer(outcome: InvocationOutcome, expected: AnswerExpectation): string | undefined {
  if (outcome.kind === 'functionError') return functionFailure(outcome);
  const answer = outcome.payload;
  if (!isObject(answer) || !Number.isInteger(answer.statusCode)) return 'answered no API Gateway proxy result';
  const status = answer.statusCode as number;
  const body = jsonBodyOf(answer);
  if (status !== expected.status) return `answered ${status}${ownCodeOf(body)} instead of ${expected.status}`;
  if (expected.code !== undefined) {
    if (typeof answer.body !== 'string' || answer.body === '') return `answered ${status} without an Error body`;
    if (body === NOT_JSON) return `answered ${status} with an Error body that is not JSON`;
    const problem = errorBodyProblem(body, status);
    if (problem !== undefined) return `answered ${status} with an Error body that ${problem}`;
    const { code } = body as { code: ErrorCode };
    if (code !== expected.code) return `answered ${status} ${code} instead of ${status} ${expected.code}`;
  }
  if (expected.body !== undefined) {
    if (body === NOT_JSON) return `answered ${status} with a body that is not JSON`;
    const problem = expected.body(body);
    if (problem !== undefined) return `answered ${status} with a body that ${problem}`;
  }
  return undefined;
}

/**
 * Judges the authorizer's answer to a token it does not know: refused, either by throwing
 * "Unauthorized" (API Gateway's 401) or, once the address has used up its allowance, by a Deny
 * policy carrying the 429's code in its context (the gateway response's). An Allow fails.
 */
export function judgeRefusal(outcome: InvocationOutcome): string | undefined {
  if (outcome.kind === 'functionError')
    return outcome.errorMessage === AUTHORIZER_UNAUTHORIZED ? undefined : functionFailure(outcome);
  const answer = outcome.payload;
  const statements = isObject(answer) && isObject(answer.policyDocument) ? answer.policyDocument.Statement : undefined;
  const effects = Array.isArray(statements)
    ? statements.map((statement: unknown) => (isObject(statement) ? statement.Effect : undefined))
    : [];
  if (effects.includes('Allow')) return 'allowed an unknown token';
  if (!effects.includes('Deny')) return 'answered neither Unauthorized nor a Deny policy';
  const code = isObject(answer) && isObject(answer.context) ? answer.context.code : undefined;
  if (code !== 'rate_limited' && code !== 'key_suspended') return "denied without the 429's code in its context";
  return undefined;
}

/** What stands in a reason for the release key, which no reason or log line holds. */
export const RELEASE_KEY_MARK = '<the release key>';

/**
 * An outcome with `secret` replaced where a reason may quote it (a function error's type and
 * message), before any judgement cuts it short: a key cut in two would leave its first part.
 */
export function withoutSecret(outcome: InvocationOutcome, secret: string): InvocationOutcome {
  if (outcome.kind !== 'functionError' || secret === '') return outcome;
  return {
    kind: 'functionError',
    errorType: outcome.errorType.replaceAll(secret, RELEASE_KEY_MARK),
    errorMessage: outcome.errorMessage.replaceAll(secret, RELEASE_KEY_MARK),
  };
}

/** A function error in one line: its type and its own message, cut short. */
export function functionFailure({ errorType, errorMessage }: { errorType: string; errorMessage: string }): string {
  return `failed: ${oneLine(errorType, 60)}: ${oneLine(errorMessage, 200)}`;
}

/** Text on one line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

const NOT_JSON = Symbol('not JSON');

function jsonBodyOf(answer: Record<string, unknown>): unknown {
  if (typeof answer.body !== 'string' || answer.isBase64Encoded === true) return NOT_JSON;
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** ` internal_error`: the code of an Error body, when it is one of the table's (never any other text of the answer). */
function ownCodeOf(body: unknown): string {
  const code = isObject(body) ? body.code : undefined;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? ` ${code as string}` : '';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
