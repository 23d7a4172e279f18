import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Headers every response of an operation carries, errors included: the request id (to quote
 * in a support request), no caching of per-key answers, and the operation's own fixed headers.
 */
export function responseHeaders(
  operationHeaders: Readonly<Record<string, string>> = {},
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const responseHeadersAfter = (request: Request): void => {
    const response = request.response;
    if (response === undefined || response === null) return;
    response.headers = {
      ...response.headers,
      'Cache-Control': 'no-store',
      'X-Request-Id': request.context.petStore.requestId,
      ...operationHeaders,
    };
  };
  return { after: responseHeadersAfter, onError: responseHeadersAfter };
}
