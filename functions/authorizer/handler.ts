import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import {
  AUTHORIZER_UNAUTHORIZED,
  type RefusalContext,
  principalContext,
  stageArnOf,
} from '../../shared/auth/authorizer-contract';
import { authorize } from '../../shared/auth/authorize';
import { readBearerHeaders } from '../../shared/auth/bearer';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { refusalMetricMembers } from '../../shared/auth/refusal-metrics';
import { CHECK_ADDRESS } from '../../shared/release-check/check-identity';
import { config } from '../../shared/config';
import { deadlineBeforeTimeout } from '../../shared/dynamodb/call-deadline';
import { documentClient } from '../../shared/dynamodb/document-client';
import { requestHeader, requestHeaderCount } from '../../shared/http/headers';
import { setRateLimitHeaders } from '../../shared/http/rate-limit-headers';
import { OPERATION_IDS, OPERATION_ROUTES, routeOf, type OperationId } from '../../shared/http/routes';
import { rateLimiter } from '../../shared/limits/limiter-instance';
import { loggedError, writeLog, type LogEntry } from '../../shared/log';

const registry = new KeyRegistry(documentClient, config.tableName);

/**
 * API Gateway's REQUEST authorizer, run before every operation (in AWS, and by the local server):
 * - a known key: Allow, with the key as the usage identifier (API Gateway's usage plans meter it
 *   and refuse a disabled or deleted key themselves) and the principal in the context, which
 *   reaches the function as `requestContext.authorizer`;
 * - no valid key, within the address's allowance: "Unauthorized", which API Gateway answers with
 *   401 (gateway response UNAUTHORIZED);
 * - no valid key, the address's allowance used up: Deny, with the 429's code, message, Retry-After
 *   and rate-limit headers in the context, which the ACCESS_DENIED gateway response sends.
 * The policy covers the whole stage, because API Gateway caches the answer per identity across
 * methods. A datastore failure is thrown: API Gateway answers 503 (AUTHORIZER_CONFIGURATION_ERROR),
 * failing closed.
 */
export const handler = async (
  event: APIGatewayRequestAuthorizerEvent,
  context?: Context,
): Promise<APIGatewayAuthorizerResult> => {
  const startedAt = performance.now();
  const deadline = deadlineBeforeTimeout(context);
  try {
    const credential = readBearerHeaders(
      requestHeaderCount(event.multiValueHeaders, 'authorization'),
      requestHeader(event.headers, 'authorization'),
    );
    const address = event.requestContext?.identity?.sourceIp ?? 'unknown';
    const decision = await authorize(credential, address, {
      registry,
      limiter: rateLimiter,
      deadline,
      arrivedAt: event.requestContext?.requestTimeEpoch,
    });
    const stageArn = stageArnOf(event.methodArn);
    switch (decision.outcome) {
      case 'allowed':
        return {
          principalId: decision.principal.keyId,
          usageIdentifierKey: decision.apiKey,
          policyDocument: policy('Allow', stageArn),
          context: { ...principalContext(decision.principal) },
        };
      case 'unauthorized':
        logRefusal(event, startedAt, { status: 401, code: 'unauthorized' });
        // This exact message is what makes API Gateway answer 401 (gateway response UNAUTHORIZED).
        throw UNAUTHORIZED;
      case 'refused': {
        logRefusal(event, startedAt, { status: 429, code: decision.problem.code });
        const headers: Record<string, string> = {};
        setRateLimitHeaders(headers, decision.rateLimit);
        const refusal: RefusalContext = {
          code: decision.problem.code,
          message: decision.problem.message,
          retryAfter: String(Math.max(1, Math.ceil(decision.problem.retryAfterSeconds ?? 1))),
          rateLimitLimit: headers['X-RateLimit-Limit'] as string,
          rateLimitRemaining: headers['X-RateLimit-Remaining'] as string,
          rateLimitReset: headers['X-RateLimit-Reset'] as string,
          rateLimitPolicy: headers['RateLimit-Policy'] as string,
          rateLimit: headers.RateLimit as string,
        };
        return { principalId: 'address', policyDocument: policy('Deny', stageArn), context: { ...refusal } };
      }
    }
  } catch (error) {
    // API Gateway answers a failing authorizer with 503 (AUTHORIZER_CONFIGURATION_ERROR); the reason goes to the log.
    if (error !== UNAUTHORIZED)
      logRefusal(event, startedAt, { status: 503, code: 'service_unavailable', failure: error });
    throw error;
  } finally {
    deadline?.clear();
  }
};

const UNAUTHORIZED = new Error(AUTHORIZER_UNAUTHORIZED);

function policy(effect: 'Allow' | 'Deny', stageArn: string): APIGatewayAuthorizerResult['policyDocument'] {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: `${stageArn}/*/*` }],
  };
}

/** How the authorizer refused a request: the status API Gateway answers, its error code, and what failed (a 503's). */
interface LoggedRefusal {
  readonly status: 401 | 429 | 503;
  readonly code: string;
  readonly failure?: unknown;
}

/** A refused request never reaches a function: its one log line is written here, a client's refusal (4XX) with its metric. */
function logRefusal(
  event: APIGatewayRequestAuthorizerEvent,
  startedAt: number,
  { status, code, failure }: LoggedRefusal,
): void {
  const operationId = operationOf(event.httpMethod, event.resource);
  const entry: LogEntry = {
    level: status === 503 ? 'error' : 'info',
    msg: 'request',
    requestId: event.requestContext?.requestId ?? 'unknown',
  };
  if (operationId !== undefined) {
    entry.operation = operationId;
    entry.route = routeOf(operationId);
  }
  entry.status = status;
  entry.durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
  entry.code = code;
  if (failure !== undefined) entry.error = loggedError(failure);
  // The check before traffic asks a new version directly, not through the alias its release gate
  // counts invocations of: its refusal is not a client's, and must not weigh in that gate.
  const counted = status !== 503 && event.requestContext?.identity?.sourceIp !== CHECK_ADDRESS;
  writeLog(entry, counted ? refusalMetricMembers(Date.now()) : undefined);
}

function operationOf(method: string | undefined, resource: string | undefined): OperationId | undefined {
  return OPERATION_IDS.find((id) => OPERATION_ROUTES[id].method === method && OPERATION_ROUTES[id].path === resource);
}
