import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readBearer } from '../../auth/bearer';
import type { ApiKeyResolver } from '../../auth/principal';
import { UnauthorizedError } from '../../errors';
import { requestHeader } from '../headers';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Finds out who is calling: the principal of a known bearer key, or else the 401 refusal. The
 * refusal is recorded, not thrown, so that the rate limiter still counts the request (per client
 * address) and the stack answers it once counted: over the limit, 429 comes first.
 */
export function identifyCaller(resolver: ApiKeyResolver): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const identifyCallerBefore = async (request: Request): Promise<void> => {
    const credential = readBearer(requestHeader(request.event.headers, 'authorization'));
    const state = request.context.petStore;
    if (credential.kind === 'missing') state.refusal = new UnauthorizedError('missing');
    else if (credential.kind === 'malformed') state.refusal = new UnauthorizedError('invalid');
    else {
      const { identity, apiId, stage } = request.event.requestContext ?? {};
      const principal = await resolver.resolve(credential.token, { apiKeyId: identity?.apiKeyId ?? undefined, apiId, stage });
      if (principal === undefined) state.refusal = new UnauthorizedError('invalid');
      else state.principal = principal;
    }
  };
  return { before: identifyCallerBefore };
}
