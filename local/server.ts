import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiGatewayHandler } from '../shared/http/stack';
import { API_BASE_PATH, DOCUMENTATION_ROUTES, OPERATIONS, type OperationId } from '../shared/http/routes';
import { lambdaContext, toProxyEvent, type RouteMatch } from './api-gateway-event';

/**
 * A small HTTP server standing in for API Gateway: it routes by the route tables, turns each
 * request into a REST proxy event, invokes the operation's handler module (the very one that is
 * deployed) and writes back what it returns. Requests that match no route are answered here with
 * the Error body, as the stage's gateway responses do in AWS.
 */
export type FunctionName = OperationId | 'apiDocs';
export type OperationHandlers = Readonly<Record<FunctionName, ApiGatewayHandler>>;

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
  const [listPets, createPet, getPet, apiDocs] = await Promise.all([
    import('../functions/listPets'),
    import('../functions/createPet'),
    import('../functions/getPet'),
    import('../functions/apiDocs'),
  ]);
  return { listPets: listPets.handler, createPet: createPet.handler, getPet: getPet.handler, apiDocs: apiDocs.handler };
}

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const handlers = options.handlers ?? (await loadFunctionHandlers());
  const routes = compileRoutes();
  const server = createServer((request, response) => {
    void (async () => {
      await options.ready;
      await serve(request, response, handlers, routes);
    })().catch((error: unknown) => {
      process.stderr.write(`local server: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!response.headersSent) writeError(response, 500, 'internal_error', 'The local server failed to answer.');
      else response.destroy();
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

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  handlers: OperationHandlers,
  routes: CompiledRoute[],
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const match = findRoute(routes, request.method ?? 'GET', url.pathname);
  if (match === undefined) {
    request.resume();
    writeError(response, 404, 'not_found', `No operation answers ${request.method} ${url.pathname}.`);
    return;
  }
  if (match === 'bad-path') {
    request.resume();
    writeError(response, 400, 'invalid_request', 'The request path is not validly percent-encoded.');
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    writeError(response, 413, 'invalid_request', `The request body is larger than ${MAX_PAYLOAD_BYTES} bytes.`);
    return;
  }
  const event = toProxyEvent(request, url, match.route, body);
  const result = await handlers[match.functionName](event, lambdaContext(match.functionName, FUNCTION_TIMEOUT_MS));
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

function writeError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify({ code, message, status }));
}
