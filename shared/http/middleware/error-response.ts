import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, UnauthorizedError } from '../../errors';
import type { ErrorBody } from '../error-body';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

export const BEARER_REALM = 'petstore';

/**
 * The one place where errors become responses: whatever was thrown is answered here with the
 * Error body and its headers, so @middy/http-error-handler (registered outside this, as the last
 * resort) never has to fall back to a bare 500 or a raw message. Anything that is not an ApiError
 * is our bug: a 500 whose message names only the request id, never the cause. The response is
 * built directly (no error object to throw on to the handler): errors are frequent answers here.
 */
export function errorResponse(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const errorResponseOnError = (request: Request): void => {
    if (request.response !== undefined) return;
    request.context.petStore.failure = request.error;
    request.response = toErrorResponse(request.error, request.context.petStore.requestId);
  };
  return { onError: errorResponseOnError };
}

export function toErrorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  if (!(error instanceof ApiError)) return internalErrorResponse(requestId);
  const body: ErrorBody = { code: error.code, message: error.message, status: error.status };
  if (error.details !== undefined && error.details.length > 0) body.details = [...error.details];
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error instanceof UnauthorizedError) headers['WWW-Authenticate'] = wwwAuthenticate(error);
  return { statusCode: error.status, headers, body: JSON.stringify(body) };
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
