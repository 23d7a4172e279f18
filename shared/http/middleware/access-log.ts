import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { deadlineBeforeTimeout } from '../../dynamodb/call-deadline';
import { loggedError, writeLog, type LogEntry } from '../../log';
import type { HttpContext } from '../request-context';
import { METRIC_DIMENSION_FIELDS, requestMetricMembers } from '../request-metrics';
import { routeOf, type OperationId } from '../routes';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * Opens the request (id, start time, deadline) and writes its one log line when it ends, whatever
 * the outcome, with the request's metrics in it (../request-metrics.ts), and clears the deadline.
 * Registered first, so it sees the final response, errors included.
 */
export function accessLog(
  operationId: OperationId,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const route = routeOf(operationId);

  const accessLogBefore = (request: Request): void => {
    request.context.petStore = {
      operationId,
      requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId ?? 'unknown',
      startedAt: performance.now(),
      // Every DynamoDB call of the request, the counters' included, is given up shortly before the
      // function's timeout: a 503 instead of a killed invocation.
      deadline: deadlineBeforeTimeout(request.context),
    };
  };

  const accessLogAfter = (request: Request): void => {
    const state = request.context.petStore;
    state.deadline?.clear();
    const status = request.response?.statusCode ?? 500;
    const failure = state.failure;
    // Built field by field (no spreads): this runs once per request.
    const entry: LogEntry = {
      level: status >= 500 ? 'error' : 'info',
      msg: 'request',
      requestId: state.requestId,
      operation: operationId,
      route,
      status,
    };
    const durationMs = Math.round((performance.now() - state.startedAt) * 100) / 100;
    entry.durationMs = durationMs;
    if (state.principal) {
      entry.keyId = state.principal.keyId;
      entry.plan = state.principal.plan;
    }
    const code = state.problem?.code;
    if (code !== undefined) entry.code = code;
    if (status >= 500 && failure !== undefined) entry.error = loggedError(failure);
    const caller =
      state.principal === undefined ? 'anonymous' : state.principal.petSpace === undefined ? 'customer' : 'release';
    writeLog(
      entry,
      requestMetricMembers({ status, code, latencyMs: durationMs, caller }, Date.now()),
      METRIC_DIMENSION_FIELDS,
    );
  };

  return { before: accessLogBefore, after: accessLogAfter, onError: accessLogAfter };
}
