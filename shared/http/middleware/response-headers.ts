import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { now } from '../../clock';
import { STANDARD_PLAN_LIMITS } from '../../limits/plans';
import { unknownStatus } from '../../limits/rate-limiter';
import { EVERY_ANSWER_HEADERS } from '../every-answer';
import { setRateLimitHeaders } from '../rate-limit-headers';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Headers every response of an operation carries, errors included: the rate-limit headers, the
 * request id (to quote in a support request), no caching of per-key answers, and the operation's
 * own fixed headers. When the request failed before it could be counted, the rate-limit headers
 * say nothing is left until the next minute.
 */
export function responseHeaders(
  operationHeaders: Readonly<Record<string, string>> = {},
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const operationHeaderNames = Object.keys(operationHeaders);
  const responseHeadersAfter = (request: Request): void => {
    const response = request.response;
    if (response === undefined || response === null) return;
    const state = request.context.petStore;
    const status = state.rateLimit ?? unknownStatus(state.principal?.limits ?? STANDARD_PLAN_LIMITS.free, now());
    // Assigned one by one into the response's own object: spreading four objects per response
    // was the costliest line of the stack.
    response.headers ??= {};
    const headers = response.headers;
    setRateLimitHeaders(headers, status);
    headers['Cache-Control'] = 'no-store';
    headers['X-Request-Id'] = state.requestId;
    headers['X-Content-Type-Options'] = EVERY_ANSWER_HEADERS['X-Content-Type-Options'] as string;
    for (const name of operationHeaderNames) headers[name] = operationHeaders[name] as string;
  };
  return { after: responseHeadersAfter, onError: responseHeadersAfter };
}
