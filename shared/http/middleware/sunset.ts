import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { now } from '../../clock';
import { goneProblem, isPastSunset, type Deprecation } from '../deprecation';
import type { HttpContext } from '../request-context';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * A deprecated operation past its sunset answers 410 `gone` to every request, by the service's
 * clock (no deploy decides it): recorded as the request's refusal, so it is still authenticated
 * and counted, and neither validated nor run (nothing is read).
 */
export function sunset(
  deprecation: Deprecation,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const gone = goneProblem(deprecation);
  const sunsetBefore = (request: Request): void => {
    const state = request.context.petStore;
    if (state.refusal === undefined && isPastSunset(deprecation, now())) state.refusal = gone;
  };
  return { before: sunsetBefore };
}
