import { now } from '../shared/clock';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { API_BASE_PATH } from '../shared/http/routes';

/**
 * Builds the API Gateway REST proxy event (payload format 1.0) for one local HTTP request, the
 * way API Gateway would: single- and multi-value maps of headers and query parameters, decoded
 * path parameters, a text body (or base64 when it is not UTF-8), and a request context.
 */
export interface RouteMatch {
  readonly resourcePath: string;
  readonly pathParameters: Record<string, string> | null;
}

// Keep a byte order mark, as API Gateway does: what to make of it is the handler's business.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What the local gateway knows of a request besides the request itself: as API Gateway hands it on. */
export interface ProxiedRequest {
  readonly url: URL;
  readonly route: RouteMatch;
  readonly body: Buffer;
  /**
   * The server's own address (`localhost:PORT`), as API Gateway gives its own domain name, never
   * the client's Host header, which links would otherwise repeat.
   */
  readonly domainName: string;
  /** A new random one unless given. */
  readonly requestId?: string;
  /** When the request came in, as API Gateway stamps `requestTimeEpoch` (the service's clock); now unless given. */
  readonly arrivedAt?: number;
}

export function toProxyEvent(
  request: IncomingMessage,
  { url, route, body, domainName, requestId = randomUUID(), arrivedAt = now() }: ProxiedRequest,
): APIGatewayProxyEvent {
  // Any name a client sends is a plain own property, as in the JSON API Gateway hands to Lambda:
  // `constructor` or `__proto__` must not meet Object.prototype.
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i] as string;
    const value = request.rawHeaders[i + 1] as string;
    if (name.toLowerCase() === 'x-forwarded-proto') continue;
    addValue(headers, multiValueHeaders, name, value);
  }
  addValue(headers, multiValueHeaders, 'X-Forwarded-Proto', 'http');

  const query: Record<string, string> = {};
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) addValue(query, multiValueQuery, name, value);
  const hasQuery = Object.keys(query).length > 0;

  let text: string | null = null;
  let isBase64Encoded = false;
  if (body.length > 0) {
    try {
      text = utf8.decode(body);
    } catch {
      text = body.toString('base64');
      isBase64Encoded = true;
    }
  }

  const method = request.method ?? 'GET';
  const path = url.pathname.slice(API_BASE_PATH.length);
  return {
    resource: route.resourcePath,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: route.pathParameters,
    stageVariables: null,
    body: text,
    isBase64Encoded,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      domainName,
      domainPrefix: 'localhost',
      httpMethod: method,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
      },
      path: url.pathname,
      protocol: `HTTP/${request.httpVersion}`,
      requestId,
      requestTimeEpoch: arrivedAt,
      resourceId: 'local',
      resourcePath: route.resourcePath,
      stage: API_BASE_PATH.slice(1),
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** Sets the single value (the last one wins, as in API Gateway) and appends to the list of values. */
function addValue(single: Record<string, string>, multi: Record<string, string[]>, name: string, value: string): void {
  Object.defineProperty(single, name, { value, enumerable: true, writable: true, configurable: true });
  if (Object.hasOwn(multi, name)) (multi[name] as string[]).push(value);
  else Object.defineProperty(multi, name, { value: [value], enumerable: true, writable: true, configurable: true });
}

/** A Lambda context with the deployed function's timeout, so early-timeout handling behaves as in AWS. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
