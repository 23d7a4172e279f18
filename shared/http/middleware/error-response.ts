import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, UnauthorizedError, type ApiProblem } from '../../errors';
import type { ErrorBody } from '../error-body';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
type RequestState = HttpContext['petStore'];

export const BEARER_REALM = 'petstore';

/**
 * The one place where thrown errors become responses: whatever was thrown is answered here with
 * the Error body and its headers, so @middy/http-error-handler (registered outside this, as the
 * last resort) never has to fall back to a bare 500 or a raw message. Anything that is not an
 * ApiError is our bug: a 500 whose message names only the request id, never the cause. The
 * response is built directly (no error object to throw on to the handler).
 */
export function errorResponse(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const errorResponseOnError = (request: Request): void => {
    if (request.response !== undefined) return;
    const state = request.context.petStore;
    state.failure = request.error;
    request.response =
      request.error instanceof ApiError ? answerProblem(state, request.error) : internalErrorResponse(state.requestId);
  };
  return { onError: errorResponseOnError };
}

/** The error response of a problem, noted on the request for its log line. */
export function answerProblem(state: RequestState, problem: ApiProblem): APIGatewayProxyResult {
  state.problem = problem;
  return problemResponse(problem);
}

/** For callers outside the stack: an ApiError's response, or a 500 for anything else. */
export function toErrorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  return error instanceof ApiError ? problemResponse(error) : internalErrorResponse(requestId);
}

function problemResponse(problem: ApiProblem): APIGatewayProxyResult {
  const body: ErrorBody = { code: problem.code, message: problem.message, status: problem.status };
  if (problem.details !== undefined && problem.details.length > 0) body.details = [...problem.details];
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (problem.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(Math.max(1, Math.ceil(problem.retryAfterSeconds)));
  if (problem instanceof UnauthorizedError) headers['WWW-Authenticate'] = wwwAuthenticate(problem);
  return { statusCode: problem.status, headers, body: JSON.stringify(body) };
}

export function internalErrorResponse(requestId: string): APIGatewayProxyResult {
  const body: ErrorBody = {
    code: 'internal_error',
    message: `An unexpected error occurred. If it persists, report request id ${requestId}.`,
    status: 500,
  };
  return { statusCode: 500, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** RFC 6750 section 3: no error code when no credential was sent; invalid_token otherwise. */
function wwwAuthenticate(error: UnauthorizedError): string {
  return error.reason === 'missing'
    ? `Bearer realm="${BEARER_REALM}"`
    : `Bearer realm="${BEARER_REALM}", error="invalid_token"`;
}
