import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { Route } from '../http/route';
import { API_BASE_PATH } from '../http/base-path';

/**
 * The events API Gateway (a REST API, payload format 1.0) sends the functions, built for requests
 * no client sent: the proxy event an integration gets, and the REQUEST authorizer's. As
 * local/api-gateway-event.ts and local/gateway.ts build them from a real request.
 */
export interface SyntheticRequest {
  readonly route: Route;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Besides those API Gateway adds to every request (Host, X-Forwarded-*). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** `requestContext.authorizer`: what the authorizer's Allow passed on; none on the routes without one. */
  readonly authorizer?: Readonly<Record<string, string>>;
  readonly sourceIp: string;
  /** `requestTimeEpoch`: when the request reached the gateway, in ms. */
  readonly arrivedAt: number;
}

/** Where the synthetic requests say they were sent: a name that resolves nowhere (RFC 6761). */
const DOMAIN_NAME = 'release-check.invalid';
const API_ID = 'releasecheck';
const ACCOUNT_ID = '000000000000';
const STAGE = API_BASE_PATH.slice(1);

/** The proxy event of the request, as API Gateway sends it to the route's function. */
export function proxyEvent(request: SyntheticRequest): APIGatewayProxyEvent {
  const path = pathOf(request);
  const headers = headersOf(request);
  const query = request.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: request.route.path,
    path,
    httpMethod: request.route.method,
    headers,
    multiValueHeaders: multiValued(headers),
    queryStringParameters: hasQuery ? { ...query } : null,
    multiValueQueryStringParameters: hasQuery ? multiValued(query) : null,
    pathParameters: request.pathParameters === undefined ? null : { ...request.pathParameters },
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      ...requestContextOf(request, path),
      authorizer: request.authorizer === undefined ? null : { ...request.authorizer },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** The REQUEST authorizer's event for the request: the method request without its body, and the method's ARN. */
export function authorizerEvent(request: SyntheticRequest): APIGatewayRequestAuthorizerEvent {
  const path = pathOf(request);
  const headers = headersOf(request);
  const query = request.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:${ACCOUNT_ID}:${API_ID}/${STAGE}/${request.route.method}${path}`,
    resource: request.route.path,
    path: `${API_BASE_PATH}${path}`,
    httpMethod: request.route.method,
    headers,
    multiValueHeaders: multiValued(headers),
    pathParameters: request.pathParameters === undefined ? null : { ...request.pathParameters },
    queryStringParameters: hasQuery ? { ...query } : null,
    multiValueQueryStringParameters: hasQuery ? multiValued(query) : null,
    stageVariables: null,
    requestContext: requestContextOf(request, path) as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

/** The route's path with its parameters filled in, below the stage (`/pets/7`). */
export function pathOf({ route, pathParameters = {} }: Pick<SyntheticRequest, 'route' | 'pathParameters'>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParameters[name] ?? ''));
}

function headersOf(request: SyntheticRequest): Record<string, string> {
  return {
    Host: DOMAIN_NAME,
    'User-Agent': 'pet-store-release-check',
    'X-Forwarded-For': request.sourceIp,
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...request.headers,
  };
}

function requestContextOf(request: SyntheticRequest, path: string) {
  return {
    accountId: ACCOUNT_ID,
    apiId: API_ID,
    domainName: DOMAIN_NAME,
    domainPrefix: 'release-check',
    httpMethod: request.route.method,
    identity: { sourceIp: request.sourceIp, userAgent: 'pet-store-release-check' },
    path: `${API_BASE_PATH}${path}`,
    protocol: 'HTTP/1.1',
    requestId: randomUUID(),
    requestTimeEpoch: request.arrivedAt,
    resourceId: 'release-check',
    resourcePath: request.route.path,
    stage: STAGE,
  };
}

function multiValued(values: Readonly<Record<string, string>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, [value]]));
}
