import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalFromContext } from '../../auth/authorizer-contract';
import { UnauthorizedError } from '../../errors';
import { requestHeader, requestHeaderCount } from '../headers';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Finds out who is calling: the principal the authorizer allowed, which API Gateway (or the local
 * server, in its place) passes as `requestContext.authorizer`. Keys are resolved once, by the
 * authorizer, never here. Without that context the request did not come through the authorizer
 * (a direct invocation): it is refused with 401, recorded rather than thrown, and not counted.
 */
export function identifyCaller(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const identifyCallerBefore = (request: Request): void => {
    const principal = principalFromContext(request.event.requestContext?.authorizer);
    const state = request.context.petStore;
    // Two Authorization headers are refused here too: in AWS the authorizer's answer is cached by
    // one header's value, so a cached Allow may let such a request through to the function.
    if (principal !== undefined && requestHeaderCount(request.event.multiValueHeaders, 'authorization') <= 1)
      state.principal = principal;
    else
      state.refusal = new UnauthorizedError(
        requestHeader(request.event.headers, 'authorization') === undefined ? 'missing' : 'invalid',
      );
  };
  return { before: identifyCallerBefore };
}
