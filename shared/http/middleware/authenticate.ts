import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readBearer } from '../../auth/bearer';
import type { ApiKeyResolver } from '../../auth/principal';
import { UnauthorizedError } from '../../errors';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/** Every operation needs a known bearer key; the principal it resolves to rides on the context. */
export function authenticate(
  resolver: ApiKeyResolver,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const authenticateBefore = async (request: Request): Promise<void> => {
    const credential = readBearer(request.event.headers?.authorization);
    if (credential.kind === 'missing') throw new UnauthorizedError('missing');
    if (credential.kind === 'malformed') throw new UnauthorizedError('invalid');
    const principal = await resolver.resolve(credential.token);
    if (principal === undefined) throw new UnauthorizedError('invalid');
    request.context.petStore.principal = principal;
  };
  return { before: authenticateBefore };
}
