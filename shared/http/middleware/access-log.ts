import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../../errors';
import { writeLog } from '../../log';
import type { HttpContext } from '../request-context';
import { routeOf, type OperationId } from '../routes';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Opens the request (id, start time) and writes its one log line when it ends, whatever the
 * outcome. Registered first, so it sees the final response, errors included.
 */
export function accessLog(operationId: OperationId): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const route = routeOf(operationId);

  const accessLogBefore = (request: Request): void => {
    request.context.petStore = {
      operationId,
      requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId ?? 'unknown',
      startedAt: performance.now(),
    };
  };

  const accessLogAfter = (request: Request): void => {
    const state = request.context.petStore;
    const status = request.response?.statusCode ?? 500;
    const failure = state.failure;
    writeLog({
      level: status >= 500 ? 'error' : 'info',
      msg: 'request',
      requestId: state.requestId,
      operation: operationId,
      route,
      status,
      durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
      ...(state.principal ? { keyId: state.principal.keyId, plan: state.principal.plan } : {}),
      ...(failure instanceof ApiError ? { code: failure.code } : {}),
      ...(status >= 500 && failure !== undefined ? { error: describeFailure(failure) } : {}),
    });
  };

  return { before: accessLogBefore, after: accessLogAfter, onError: accessLogAfter };
}

function describeFailure(failure: unknown): Record<string, unknown> {
  if (!(failure instanceof Error)) return { value: String(failure) };
  const cause = failure.cause instanceof Error ? { name: failure.cause.name, message: failure.cause.message } : undefined;
  return { name: failure.name, message: failure.message, stack: failure.stack, ...(cause ? { cause } : {}) };
}
