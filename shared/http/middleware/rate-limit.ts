import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RateLimiter } from '../../limits/rate-limiter';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Counts the request against its key's plan. The count is started here but not waited for: the
 * decision (`state.admission`) is awaited before any answer and before any write, so a read
 * overlaps it and waits for one round trip instead of two, and a refused request still answers
 * 429 and writes nothing. The status rides on the context; `responseHeaders` turns it into
 * headers on whatever response follows. Requests without a valid key never get here in AWS or
 * through the local server: the authorizer counts those per client address.
 */
export function rateLimit(
  limiter: RateLimiter,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const rateLimitBefore = (request: Request): void => {
    const state = request.context.petStore;
    const principal = state.principal;
    if (principal === undefined) return;
    const subject = `key#${principal.keyId}`;
    // A key this container knows to be suspended is refused without touching DynamoDB, and its
    // operation does no work at all (shedding load is what a suspension is for).
    const known = limiter.knownSuspension(subject, principal.limits);
    if (known !== undefined) {
      state.rateLimit = known.status;
      state.shed = true;
      const refused = Promise.reject(known.refusal);
      refused.catch(ignore);
      state.admission = refused;
      return;
    }
    const admission = limiter
      .check(subject, principal.limits, state.deadline, request.event.requestContext?.requestTimeEpoch)
      .then(function admitOrRefuse(decision) {
        state.rateLimit = decision.status;
        if (decision.refusal !== undefined) throw decision.refusal;
      });
    // Awaited later on every path; this only keeps Node from calling a refusal unhandled meanwhile.
    admission.catch(ignore);
    state.admission = admission;
  };
  return { before: rateLimitBefore };
}

function ignore(): void {}
