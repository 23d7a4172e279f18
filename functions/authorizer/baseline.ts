import { createHash } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { isoTimestamp, now } from '../../shared/clock';
import { OPERATION_ROUTES } from '../../shared/http/operation-routes.generated';
import { CHECK_ADDRESS } from '../../shared/release-check/check-identity';
import { authorizationCount, count, db, TABLE } from '../../bench/baseline/common';

/**
 * The baseline's REQUEST authorizer: the same decisions and DynamoDB requests as ours (the key by
 * its hash; without a valid key, the address counted under the Free limits), the same answers and
 * log line, written by hand.
 */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Which operation a method and resource are, from the declarations as ours reads them. */
const ROUTES: Record<string, string> = Object.fromEntries(
  Object.entries(OPERATION_ROUTES).map(([id, route]) => [`${route.method} ${route.path}`, id]),
);

// The same refusal metric as ours (shared/auth/refusal-metrics.ts), its directive written out by hand; none for the release check's address.
const NAMESPACE = process.env.METRICS_NAMESPACE || 'PetStore/local';
const REFUSAL_METRIC = `"function":"authorizer","version":${JSON.stringify(process.env.AWS_LAMBDA_FUNCTION_VERSION || '$LATEST')},"Refusals":1,"_aws":{"Timestamp":`;
const REFUSAL_DIRECTIVE = `,"CloudWatchMetrics":[{"Namespace":"${NAMESPACE}","Dimensions":[["function"],["function","version"]],"Metrics":[{"Name":"Refusals","Unit":"Count"}]}]}`;

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const startedAt = performance.now();
  const authorization = event.headers?.Authorization ?? event.headers?.authorization ?? '';
  // Two Authorization headers are malformed, whatever their values.
  const token =
    authorization.length <= 528 && authorizationCount(event.multiValueHeaders) <= 1
      ? BEARER.exec(authorization)?.[1]
      : undefined;
  const [api = '', stage = ''] = event.methodArn.split('/');
  const resource = `${api}/${stage}/*/*`;
  if (token !== undefined) {
    const hash = createHash('sha256').update(token).digest('hex');
    const { Item } = await db.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: `APIKEY#${hash}` }, sk: { S: hash } } }),
    );
    const limits = Item?.limits?.M;
    const plan = Item?.plan?.S;
    if (limits !== undefined && plan !== undefined) {
      const keyId = hash.slice(0, 16);
      return {
        principalId: keyId,
        usageIdentifierKey: token,
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
        },
        context: { keyId, plan, perMinute: String(limits.perMinute?.N), perDay: String(limits.perDay?.N) },
      };
    }
  }
  const address = event.requestContext?.identity?.sourceIp ?? 'unknown';
  const counted = await count(`ip#${address}`, 60, 1000);
  const operation = ROUTES[`${event.httpMethod} ${event.resource}`];
  const log = (status: number, code: string) =>
    process.stdout.write(
      `{"time":"${isoTimestamp(Date.now())}","level":"info","msg":"request","requestId":${JSON.stringify(event.requestContext?.requestId ?? 'unknown')}${
        operation ? `,"operation":"${operation}","route":"${event.httpMethod} /v1${event.resource}"` : ''
      },"status":${status},"durationMs":${Math.round((performance.now() - startedAt) * 100) / 100},"code":"${code}"${address === CHECK_ADDRESS ? '' : `,${REFUSAL_METRIC}${Date.now()}${REFUSAL_DIRECTIVE}`}}\n`,
    );
  if (counted.ok) {
    log(401, 'unauthorized');
    throw new Error('Unauthorized');
  }
  log(429, 'rate_limited');
  // Never shorter than API Gateway keeps this Deny for the same request (30 s).
  const seconds = Math.max(30, counted.resetSeconds - Math.floor(now() / 1000));
  return {
    principalId: 'address',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: resource }],
    },
    context: {
      code: 'rate_limited',
      message: 'Too many requests without a valid API key from this address; retry after the time in Retry-After.',
      retryAfter: String(seconds),
      rateLimitLimit: String(counted.limit),
      rateLimitRemaining: '0',
      rateLimitReset: String(counted.resetSeconds),
      rateLimitPolicy: '"minute";q=60;w=60, "day";q=1000;w=86400',
      rateLimit: `"${counted.window}";r=0;t=${Math.max(0, counted.resetSeconds - Math.ceil(now() / 1000))}`,
    },
  };
};
