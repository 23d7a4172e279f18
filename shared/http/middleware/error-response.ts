import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, UnauthorizedError } from '../../errors';
import type { ErrorBody } from '../error-body';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

export const BEARER_REALM = 'petstore';

/**
 * The one place where errors become responses. Whatever was thrown is turned into the form
 * @middy/http-error-handler expects (statusCode, expose, message = our JSON Error body, headers),
 * so that handler never falls back to a bare 500 or to a raw message. Anything that is not an
 * ApiError is our bug: a 500 whose message names only the request id, never the cause.
 */
export function errorResponse(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const errorResponseOnError = (request: Request): void => {
    if (request.response !== undefined) return;
    request.context.petStore.failure = request.error;
    request.error = toHttpError(request.error, request.context.petStore.requestId);
  };
  return { onError: errorResponseOnError };
}

export class ShapedHttpError extends Error {
  readonly expose = true;
  constructor(
    readonly statusCode: number,
    body: ErrorBody,
    readonly headers: Record<string, string>,
  ) {
    super(JSON.stringify(body));
    this.name = 'ShapedHttpError';
  }
}

export function toHttpError(error: unknown, requestId: string): ShapedHttpError {
  if (!(error instanceof ApiError)) return internalError(requestId);
  const body: ErrorBody = { code: error.code, message: error.message, status: error.status };
  if (error.details !== undefined && error.details.length > 0) body.details = [...error.details];
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error instanceof UnauthorizedError) headers['WWW-Authenticate'] = wwwAuthenticate(error);
  return new ShapedHttpError(error.status, body, headers);
}

/** Used too as @middy/http-error-handler's fallback, should anything reach it unshaped. */
export function internalError(requestId: string): ShapedHttpError {
  return new ShapedHttpError(
    500,
    {
      code: 'internal_error',
      message: `An unexpected error occurred. If it persists, report request id ${requestId}.`,
      status: 500,
    },
    { 'Content-Type': 'application/json' },
  );
}

/** RFC 6750 section 3: no error code when no credential was sent; invalid_token otherwise. */
function wwwAuthenticate(error: UnauthorizedError): string {
  return error.reason === 'missing'
    ? `Bearer realm="${BEARER_REALM}"`
    : `Bearer realm="${BEARER_REALM}", error="invalid_token"`;
}
