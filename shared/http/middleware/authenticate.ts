import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readBearer } from '../../auth/bearer';
import type { ApiKeyResolver } from '../../auth/principal';
import { UnauthorizedError } from '../../errors';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Finds out who is calling: the principal of a known bearer key, or why there is none. It does
 * not refuse yet, so that the rate limiter can count unauthenticated requests too (per client
 * address), before `requireCaller` answers them with 401.
 */
export function identifyCaller(resolver: ApiKeyResolver): Middleware {
  const identifyCallerBefore = async (request: Request): Promise<void> => {
    const credential = readBearer(request.event.headers?.authorization);
    const state = request.context.petStore;
    if (credential.kind === 'missing') state.authFailure = new UnauthorizedError('missing');
    else if (credential.kind === 'malformed') state.authFailure = new UnauthorizedError('invalid');
    else {
      const { identity, apiId, stage } = request.event.requestContext ?? {};
      const principal = await resolver.resolve(credential.token, { apiKeyId: identity?.apiKeyId ?? undefined, apiId, stage });
      if (principal === undefined) state.authFailure = new UnauthorizedError('invalid');
      else state.principal = principal;
    }
  };
  return { before: identifyCallerBefore };
}

/** Every operation needs a known key: 401 otherwise (once counted: over the limit, 429 comes first). */
export function requireCaller(): Middleware {
  const requireCallerBefore = async (request: Request): Promise<void> => {
    const state = request.context.petStore;
    if (state.authFailure === undefined) return;
    await state.admission;
    throw state.authFailure;
  };
  return { before: requireCallerBefore };
}
