import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { STANDARD_PLAN_LIMITS } from '../../limits/plans';
import type { RateLimiter } from '../../limits/rate-limiter';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Counts the request before any work is done: against its key's plan, or, without a known key,
 * against the client address under the Free limits (so key guessing is slowed down too). A
 * refused request goes no further. The status rides on the context; `responseHeaders` turns it
 * into headers on whatever response follows.
 */
export function rateLimit(limiter: RateLimiter): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const rateLimitBefore = async (request: Request): Promise<void> => {
    const state = request.context.petStore;
    const subject = state.principal ? `key#${state.principal.keyId}` : `ip#${request.event.requestContext?.identity?.sourceIp ?? 'unknown'}`;
    const decision = await limiter.check(subject, state.principal?.limits ?? STANDARD_PLAN_LIMITS.free);
    state.rateLimit = decision.status;
    if (decision.refusal !== undefined) throw decision.refusal;
  };
  return { before: rateLimitBefore };
}
