import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { EVERY_ANSWER_HEADERS } from '../shared/http/every-answer';
import { EDGE_REFUSAL, renderGatewayResponse, type GatewayResponseType } from '../shared/http/gateway-responses';
import type { ApiGatewayHandler } from '../shared/http/stack';
import { API_BASE_PATH, DOCUMENTATION_ROUTES, OPERATIONS, type OperationId } from '../shared/http/routes';
import { lambdaContext, toProxyEvent, type RouteMatch } from './api-gateway-event';
import { LocalAuthorization, type AuthorizerHandler } from './gateway';
import { LocalWebAcl } from './web-acl';

/**
 * A small HTTP server standing in for API Gateway and the WAF in front of it. Per request, in
 * API Gateway's order: the per-address limits of the web ACL; the route tables (an unknown route
 * is API Gateway's 404); for an operation, the REQUEST authorizer (the deployed module, its answer
 * cached per identity as the stack sets) unless there is no Authorization header at all; then the
 * operation's handler module (the very one that is deployed) with the authorizer's context as
 * `requestContext.authorizer`. Whatever API Gateway itself answers is answered here with the same
 * gateway response the stack declares (shared/http/gateway-responses.ts).
 */
export type FunctionName = OperationId | 'apiDocs';
export type OperationHandlers = Readonly<Record<FunctionName, ApiGatewayHandler>> & { readonly authorizer: AuthorizerHandler };

export interface LocalServerOptions {
  readonly port: number;
  readonly host?: string;
  /** The handlers to serve; by default the modules under functions/. */
  readonly handlers?: OperationHandlers;
  /** Resolves when the server may pass requests on (e.g. once the datastore is up). */
  readonly ready?: Promise<unknown>;
}

export interface LocalServer {
  readonly server: Server;
  /** e.g. http://localhost:3000/v1 */
  readonly baseUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

/** API Gateway's own payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** The timeout the stack gives each function. */
const FUNCTION_TIMEOUT_MS = 10_000;

export async function loadFunctionHandlers(): Promise<OperationHandlers> {
  const [listPets, createPet, getPet, apiDocs, authorizer] = await Promise.all([
    import('../functions/listPets'),
    import('../functions/createPet'),
    import('../functions/getPet'),
    import('../functions/apiDocs'),
    import('../functions/authorizer'),
  ]);
  return { listPets: listPets.handler, createPet: createPet.handler, getPet: getPet.handler, apiDocs: apiDocs.handler, authorizer: authorizer.handler };
}

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const handlers = options.handlers ?? (await loadFunctionHandlers());
  const gateway: Gateway = {
    handlers,
    routes: compileRoutes(),
    webAcl: new LocalWebAcl(),
    authorization: new LocalAuthorization(handlers.authorizer, () => lambdaContext('authorizer', FUNCTION_TIMEOUT_MS)),
  };
  const server = createServer((request, response) => {
    void (async () => {
      await options.ready;
      await serve(request, response, gateway);
    })().catch((error: unknown) => {
      process.stderr.write(`local server: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!response.headersSent) {
        response.writeHead(500, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...EVERY_ANSWER_HEADERS });
        response.end(JSON.stringify({ code: 'internal_error', message: 'The local server failed to answer.', status: 500 }));
      } else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    baseUrl: `http://localhost:${port}${API_BASE_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface CompiledRoute {
  readonly functionName: FunctionName;
  readonly method: string;
  readonly resourcePath: string;
  readonly pattern: RegExp;
  readonly parameterNames: string[];
}

function compileRoutes(): CompiledRoute[] {
  const routes: { functionName: FunctionName; method: string; path: string }[] = [
    ...(Object.keys(OPERATIONS) as OperationId[]).map((operationId) => ({ functionName: operationId, ...OPERATIONS[operationId] })),
    ...Object.values(DOCUMENTATION_ROUTES).map((route) => ({ functionName: 'apiDocs' as const, ...route })),
  ];
  return routes.map(({ functionName, method, path }) => {
    const parameterNames: string[] = [];
    const source = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      parameterNames.push(name);
      return '([^/]+)';
    });
    return { functionName, method, resourcePath: path, pattern: new RegExp(`^${API_BASE_PATH}${source.replaceAll('.', '\\.')}$`), parameterNames };
  });
}

interface Gateway {
  readonly handlers: OperationHandlers;
  readonly routes: CompiledRoute[];
  readonly webAcl: LocalWebAcl;
  readonly authorization: LocalAuthorization;
}

async function serve(request: IncomingMessage, response: ServerResponse, gateway: Gateway): Promise<void> {
  const requestId = randomUUID();
  const answer = (type: GatewayResponseType, authorizer?: Record<string, string>) => {
    request.resume();
    writeGatewayResponse(response, type, requestId, authorizer);
  };
  // API Gateway's identity source: a header that is there and not empty.
  const hasAuthorization = (request.headers.authorization ?? '') !== '';
  if (!gateway.webAcl.admit(request.socket.remoteAddress ?? 'unknown', hasAuthorization)) {
    request.resume();
    response.writeHead(EDGE_REFUSAL.status, { ...EDGE_REFUSAL.headers, 'Retry-After': String(EDGE_REFUSAL.retryAfterSeconds) });
    response.end(EDGE_REFUSAL.body);
    return;
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  const match = findRoute(gateway.routes, request.method ?? 'GET', url.pathname);
  if (match === undefined) return answer('MISSING_AUTHENTICATION_TOKEN');
  if (match === 'bad-path') return answer('DEFAULT_4XX');
  const body = await readBody(request);
  if (body === undefined) return answer('REQUEST_TOO_LARGE');
  const event = toProxyEvent(request, url, match.route, body, requestId);
  if (match.functionName !== 'apiDocs') {
    if (!hasAuthorization) return answer('UNAUTHORIZED');
    const decision = await gateway.authorization.decide(event);
    if (decision.outcome !== 'allow') return answer(decision.outcome, 'context' in decision ? decision.context : undefined);
    event.requestContext.authorizer = decision.context;
  }
  let result: APIGatewayProxyResult;
  try {
    result = await gateway.handlers[match.functionName](event, lambdaContext(match.functionName, FUNCTION_TIMEOUT_MS));
  } catch (error) {
    // A function that throws instead of answering is, to API Gateway, an integration failure.
    process.stderr.write(`local server: ${match.functionName} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    return answer('INTEGRATION_FAILURE');
  }
  writeResult(response, result);
}

function findRoute(
  routes: CompiledRoute[],
  method: string,
  pathname: string,
): { functionName: FunctionName; route: RouteMatch } | 'bad-path' | undefined {
  for (const route of routes) {
    const found = route.pattern.exec(pathname);
    if (found === null || route.method !== method) continue;
    if (route.parameterNames.length === 0) return { functionName: route.functionName, route: { resourcePath: route.resourcePath, pathParameters: null } };
    const pathParameters: Record<string, string> = {};
    try {
      route.parameterNames.forEach((name, i) => (pathParameters[name] = decodeURIComponent(found[i + 1] as string)));
    } catch {
      return 'bad-path';
    }
    return { functionName: route.functionName, route: { resourcePath: route.resourcePath, pathParameters } };
  }
  return undefined;
}

/** The body, or undefined once it passes API Gateway's limit (the rest is not read). */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function writeResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

function writeGatewayResponse(response: ServerResponse, type: GatewayResponseType, requestId: string, authorizer?: Record<string, string>): void {
  const { status, headers, body } = renderGatewayResponse(type, { requestId, ...(authorizer ? { authorizer } : {}) });
  response.writeHead(status, headers);
  response.end(body);
}
