import { now } from '../shared/clock';
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { EVERY_ANSWER_HEADERS } from '../shared/http/every-answer';
import { MAX_BODY_BYTES } from '../shared/http/body-limit';
import {
  EDGE_BODY_TOO_LARGE,
  EDGE_REFUSAL,
  GATEWAY_RESPONSES,
  renderErrorAnswer,
  type GatewayResponse,
  type GatewayResponseType,
} from '../shared/http/gateway-responses';
import type { ApiGatewayHandler } from '../shared/http/stack';
import { FUNCTIONS, OPERATION_IDS, OPERATIONS, type DataAccess, type OperationId } from '../functions/table';
import { API_BASE_PATH } from '../shared/http/routes';
import { lambdaContext, toProxyEvent, type RouteMatch } from './api-gateway-event';
import { checkDeclaredRights, runAs } from './dynamodb-rights';
import { queueCallsForSockets } from './dynamodb-socket-queue';
import { LocalAuthorization, type AuthorizerHandler } from './gateway';
import { isValidHost } from './host-header';
import { requestTarget } from './request-target';
import { LocalWebAcl } from './web-acl';

/**
 * A small HTTP server standing in for API Gateway and the WAF in front of it. Per request, in
 * API Gateway's order: the per-address limits of the web ACL; the route tables (an unknown route
 * is API Gateway's 404); for an operation, the REQUEST authorizer (the deployed module, its answer
 * cached per identity as the stack sets) unless there is no Authorization header at all; then the
 * operation's handler module (the very one that is deployed) with the authorizer's context as
 * `requestContext.authorizer`. Whatever API Gateway itself answers is answered here with the same
 * gateway response the stack declares (shared/http/gateway-responses.ts). What Node's HTTP server
 * would answer on its own (headers too large, too slow, malformed) is answered here in the same
 * Error shape (localRefusals), never bare; and a request is served with all its headers or not at all.
 * A request that awaits `100 Continue` gets it only once everything judged from its headers
 * allows it; a refused one gets its refusal at once, and its connection is closed unread.
 */
/** The functions a route leads to (the authorizer runs before them). */
export type RoutedFunction = OperationId | 'apiDocs';
export type OperationHandlers = Readonly<Record<RoutedFunction, ApiGatewayHandler>> & {
  readonly authorizer: AuthorizerHandler;
};
/** What each function the server runs may do in DynamoDB. */
export type ServedRights = Readonly<Record<RoutedFunction | 'authorizer', readonly DataAccess[]>>;

export interface LocalServerOptions {
  readonly port: number;
  readonly host?: string;
  /** The handlers to serve; by default the modules under functions/. */
  readonly handlers?: OperationHandlers;
  /** Resolves when the server may pass requests on (e.g. once the datastore is up). */
  readonly ready?: Promise<unknown>;
  /** How long a request's body may take to arrive (BODY_DEADLINE_MS; tests shorten it). */
  readonly bodyDeadlineMs?: number;
  /** How long a request's line and headers may take to arrive, in whole ms (HEADERS_DEADLINE_MS; tests shorten it). */
  readonly headersDeadlineMs?: number;
  /**
   * How long a request may take from its arrival, its functions' time included (FUNCTION_TIMEOUT_MS,
   * the stack's). A test of concurrency alone lifts it, so that a slow machine's deadlines are not
   * what it measures (test/http/requests-at-once.test.ts).
   */
  readonly functionTimeoutMs?: number;
  /** The functions' DynamoDB rights; by default as declared (functions/table.ts), as the stack grants them. */
  readonly rights?: ServedRights;
  /** Called once per answered request (the gateway's own answers too), when its answer is done: npm start's readable log. */
  readonly onAnswered?: (request: AnsweredRequest) => void;
}

/** A request as npm start's readable log shows it (local/request-log.ts). */
export interface AnsweredRequest {
  /** When it was answered, in ms since the epoch. */
  readonly time: number;
  readonly status: number;
  readonly method: string;
  /** The path as the client sent it, without the query. */
  readonly path: string;
  /** From its arrival to its answer. */
  readonly durationMs: number;
  /** The function that served it; none when the gateway answered alone. */
  readonly operation?: string;
  /** From the authorizer's context, once it allowed the request. */
  readonly plan?: string;
  readonly requestId: string;
}

/**
 * A body not complete this long after its request arrived has its connection closed, unanswered:
 * every local answer comes within 10 s of a request's arrival (decisions.md).
 */
export const BODY_DEADLINE_MS = 10_000;

/**
 * A request whose line and headers are not complete this long after they began (after the
 * connection opened, for its first request) is answered 408, and its connection closed.
 */
export const HEADERS_DEADLINE_MS = 10_000;

/**
 * The most header fields a request may have; more are a 431, never a request served with some of
 * them dropped (Node's own limit, 2,000, drops the rest without a word). Far above what any real
 * client sends (a browser about 10 to 20, curl 3, an SDK about 10): a request over it comes from a
 * broken or hostile client.
 */
export const MAX_HEADER_COUNT = 100;

/** The most bytes of request line and headers the server reads (Node's default, set so that the 431 can say it). */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The local server's own refusals, before any route is looked for: what Node's HTTP server would
 * otherwise answer bare (or, for too many headers, serve with some of them dropped). API Gateway
 * has its own limits and answers; these are the local server's. The code table has no 408, 417 or
 * 431: as for API Gateway's 413, `invalid_request` with the real status.
 */
function localRefusals(headersDeadlineMs: number) {
  const refusal = (status: number, message: string): GatewayResponse => ({
    status,
    code: { literal: 'invalid_request' },
    message: { literal: message },
    headers: {},
  });
  const deadline = headersDeadlineMs % 1000 === 0 ? `${headersDeadlineMs / 1000} s` : `${headersDeadlineMs} ms`;
  return {
    HEADERS_TOO_LARGE: refusal(
      431,
      `The request's line and headers are larger than the local server accepts (${MAX_HEADER_BYTES / 1024} KiB).`,
    ),
    TOO_MANY_HEADERS: refusal(431, `The request has more headers than the local server accepts (${MAX_HEADER_COUNT}).`),
    HEADERS_TOO_SLOW: refusal(408, `The request's line and headers did not arrive within ${deadline}.`),
    MALFORMED: refusal(400, 'The request is not well-formed HTTP/1.1.'),
    MALFORMED_TARGET: refusal(400, 'The request target is not a path or an absolute URL the local server can read.'),
    NO_HOST: refusal(400, 'An HTTP/1.1 request needs a Host header.'),
    HOST_REPEATED: refusal(400, 'A request may have one Host header only.'),
    HOST_INVALID: refusal(400, 'The Host header is not a host with an optional port (RFC 9112, 3.2).'),
    EXPECTATION_FAILED: refusal(417, 'The local server fulfils no Expect header but "Expect: 100-continue".'),
  } as const;
}
type LocalRefusals = ReturnType<typeof localRefusals>;

/**
 * How often Node looks for headers past their deadline: it answers at most this late. A twentieth
 * of the deadline (500 ms of 10 s), so that the 408 comes close to it whatever the deadline.
 */
function connectionsCheckingInterval(headersDeadlineMs: number): number {
  return Math.min(500, Math.max(5, Math.round(headersDeadlineMs / 20)));
}

export interface LocalServer {
  readonly server: Server;
  /** e.g. http://localhost:3000/v1 */
  readonly baseUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The timeout the stack gives each function. */
const FUNCTION_TIMEOUT_MS = 10_000;

/** The handler modules the server runs, as declared (functions/table.ts, functions/<name>/handler.ts for an operation): the very files the stack deploys. */
export async function loadFunctionHandlers(
  declared: Readonly<Record<RoutedFunction | 'authorizer', { readonly handler: string }>> = FUNCTIONS,
): Promise<OperationHandlers> {
  const load = async (name: RoutedFunction | 'authorizer') => {
    const file = declared[name].handler;
    const module = (await import(new URL(`../${file}`, import.meta.url).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function')
      throw new Error(`${file} (the handler of ${name} as declared) exports no function named handler`);
    return module.handler;
  };
  const entries = await Promise.all(
    [...OPERATION_IDS, 'apiDocs' as const, 'authorizer' as const].map(
      async (name) => [name, await load(name)] as const,
    ),
  );
  return Object.fromEntries(entries) as unknown as OperationHandlers;
}

/** Every function the server runs, with its declared rights. */
export const DECLARED_RIGHTS: ServedRights = Object.fromEntries(
  [...OPERATION_IDS, 'apiDocs' as const, 'authorizer' as const].map((name) => [name, FUNCTIONS[name].dynamodb]),
) as unknown as ServedRights;

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const handlers = options.handlers ?? (await loadFunctionHandlers());
  // The client every deployed module shares (one per container): imported here, once the caller
  // has set the environment it reads.
  // (the key registry's document client is made on it and shares its middleware stack).
  const [{ dynamoDbClient, LOCAL_CALLS_IN_FLIGHT }, { config }] = await Promise.all([
    import('../shared/dynamodb/client'),
    import('../shared/config'),
  ]);
  checkDeclaredRights(dynamoDbClient);
  const functionTimeoutMs = options.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS;
  // A call waits for a socket no longer than its function may run (or, when another server in the
  // process shares the client, that server's if longer: the call's deadline signal still ends it).
  queueCallsForSockets(dynamoDbClient, { inFlight: LOCAL_CALLS_IN_FLIGHT, maxWaitMs: functionTimeoutMs });
  const rights = options.rights ?? DECLARED_RIGHTS;
  const as = (functionName: RoutedFunction | 'authorizer') => ({
    functionName,
    rights: rights[functionName],
    tableName: config.tableName,
  });
  const authorizer: AuthorizerHandler = (event, context) =>
    runAs(as('authorizer'), () => handlers.authorizer(event, context));
  const gateway: Gateway = {
    handlers,
    run: (functionName, event, context) => runAs(as(functionName), () => handlers[functionName](event, context)),
    routes: compileRoutes(),
    webAcl: new LocalWebAcl(),
    authorization: new LocalAuthorization(authorizer, () => lambdaContext('authorizer', functionTimeoutMs)),
    functionTimeoutMs,
    bodyDeadlineMs: options.bodyDeadlineMs ?? BODY_DEADLINE_MS,
    onAnswered: options.onAnswered,
    domainName: 'localhost',
  };
  const headersDeadlineMs = options.headersDeadlineMs ?? HEADERS_DEADLINE_MS;
  const refusals = localRefusals(headersDeadlineMs);
  const connections = new WeakMap<Duplex, Connection>();
  /** `awaitsContinue`: the request's `Expect: 100-continue`, whose 100 serve sends once it allows it. */
  const handle = (request: IncomingMessage, response: ServerResponse, awaitsContinue: boolean) => {
    // PRI (the start of HTTP/2's preface) has its connection closed by Node as soon as it is parsed,
    // unanswered: answered at once, straight on the connection, as for any method no route has.
    if (request.method === 'PRI') {
      const connection = connections.get(request.socket);
      return answerRaw(
        { socket: request.socket, connection },
        GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN,
        gateway.onAnswered,
        {
          method: 'PRI',
          path: pathOf(request),
        },
      );
    }
    trackAnswer(connections, request.socket, response);
    const exchange: Exchange = { request, response, awaitsContinue };
    // Before anything else: a request is served with all its headers, or not at all.
    const refusal = refusalOfHead(request, refusals);
    if (refusal !== undefined) return refuse(exchange, refusal, gateway);
    const url = requestTarget(request.url ?? '/');
    if (url === undefined) return refuse(exchange, refusals.MALFORMED_TARGET, gateway);
    void (async () => {
      await options.ready;
      await serve(exchange, url, gateway);
    })().catch((error: unknown) => {
      process.stderr.write(`local server: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!response.headersSent) {
        response.writeHead(500, {
          'Content-Type': 'application/json',
          'Cache-Control': 'no-store',
          ...EVERY_ANSWER_HEADERS,
        });
        response.end(
          JSON.stringify({ code: 'internal_error', message: 'The local server failed to answer.', status: 500 }),
        );
      } else response.destroy();
    });
  };
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: headersDeadlineMs,
      connectionsCheckingInterval: connectionsCheckingInterval(headersDeadlineMs),
      // Node's deadline for a whole request, body included, would answer 408 while a request is
      // being served: a body has its own deadline here (bodyDeadlineMs, kept by serve).
      requestTimeout: 0,
      // Node answers these itself, bare: here, in the Error shape (below).
      requireHostHeader: false,
    },
    (request, response) => handle(request, response, false),
  );
  // With a listener, Node leaves `100 Continue` to the server (it would send it at once, before
  // any check): serve sends it once the request is allowed.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => handle(request, response, true));
  // Node keeps one header more than the server allows (and drops the rest without a word), so that a
  // request over the count is seen, and refused by refusalOfHead, never served with headers missing.
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  server.on('connection', (socket: Socket) =>
    connections.set(socket, { since: performance.now(), responses: new Set() }),
  );
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    trackAnswer(connections, request.socket, response);
    refuse({ request, response, awaitsContinue: false }, refusals.EXPECTATION_FAILED, gateway);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, { socket, connection: connections.get(socket) }, refusals, gateway.onAnswered),
  );
  // CONNECT, which Node would close unanswered: as for any method no route has, API Gateway's 404.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    answerRaw(
      { socket, connection: connections.get(socket) },
      GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN,
      gateway.onAnswered,
      {
        method: 'CONNECT',
        path: pathOf(request),
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Links name this address, never the client's Host (API Gateway gives its own domain name).
  gateway.domainName = `localhost:${port}`;
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
  readonly functionName: RoutedFunction;
  readonly method: string;
  readonly resourcePath: string;
  readonly pattern: RegExp;
  readonly parameterNames: string[];
}

function compileRoutes(): CompiledRoute[] {
  const routes: { functionName: RoutedFunction; method: string; path: string }[] = [
    ...OPERATION_IDS.map((operationId) => ({ functionName: operationId, ...OPERATIONS[operationId].route })),
    ...Object.values(FUNCTIONS.apiDocs.routes).map((route) => ({ functionName: 'apiDocs' as const, ...route })),
  ];
  return routes.map(({ functionName, method, path }) => {
    const parameterNames: string[] = [];
    const source = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      parameterNames.push(name);
      return '([^/]+)';
    });
    return {
      functionName,
      method,
      resourcePath: path,
      pattern: new RegExp(`^${API_BASE_PATH}${source.replaceAll('.', '\\.')}$`),
      parameterNames,
    };
  });
}

interface Gateway {
  readonly handlers: OperationHandlers;
  /** Runs a function's handler with its declared DynamoDB rights. */
  readonly run: (
    functionName: RoutedFunction,
    ...invocation: Parameters<ApiGatewayHandler>
  ) => ReturnType<ApiGatewayHandler>;
  readonly routes: CompiledRoute[];
  readonly webAcl: LocalWebAcl;
  readonly authorization: LocalAuthorization;
  readonly bodyDeadlineMs: number;
  readonly functionTimeoutMs: number;
  readonly onAnswered: ((request: AnsweredRequest) => void) | undefined;
  /** The server's own address as API Gateway's `domainName` (localhost and the port it listens on), set once it listens. */
  domainName: string;
}

/** A request and its response; `awaitsContinue`: its `Expect: 100-continue`, whose 100 serve sends once it allows it. */
interface Exchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly awaitsContinue: boolean;
}

async function serve(exchange: Exchange, url: URL, gateway: Gateway): Promise<void> {
  const { request, response, awaitsContinue } = exchange;
  const requestId = randomUUID();
  // Stamped once, at the door, as API Gateway stamps requestTimeEpoch: the suspension rule counts by it.
  const arrivedAt = now();
  const bodyDueAt = Date.now() + gateway.bodyDeadlineMs;
  // Every local answer comes within 10 s of the request's arrival (decisions.md): the function gets what is left of them.
  const answerDueAt = Date.now() + gateway.functionTimeoutMs;
  // Filled in on the way, for onAnswered: the plan once the authorizer allows, the operation once a function runs.
  const served: { operation?: string; plan?: string } = {};
  // Until the request is allowed: its client waits for `100 Continue` before it sends the body.
  let continuePending = awaitsContinue;
  if (gateway.onAnswered !== undefined) reportWhenAnswered(exchange, requestId, served, gateway.onAnswered);
  const answer = (type: GatewayResponseType, authorizer?: Record<string, string>) => {
    leaveBody(request, response, continuePending, bodyDueAt);
    writeGatewayResponse(response, type, requestId, authorizer);
  };
  // API Gateway's identity source: a header that is there and not empty.
  const hasAuthorization = (request.headers.authorization ?? '') !== '';
  // The web ACL's answers (infra/waf.ts): fixed, without the request's id, as a WAF answer is.
  const answerAtTheEdge = (refusal: typeof EDGE_BODY_TOO_LARGE, headers: Record<string, string> = {}) => {
    leaveBody(request, response, continuePending, bodyDueAt);
    response.writeHead(refusal.status, { ...refusal.headers, ...headers });
    response.end(refusal.body);
  };
  if (!gateway.webAcl.admit(request.socket.remoteAddress ?? 'unknown', hasAuthorization)) {
    return answerAtTheEdge(EDGE_REFUSAL, { 'Retry-After': String(EDGE_REFUSAL.retryAfterSeconds) });
  }
  // Its body rule, before the route and the key as in AWS, for a body whose length is announced; a
  // body sent in chunks is refused once its reading passes the bound (after the key: local only).
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return answerAtTheEdge(EDGE_BODY_TOO_LARGE);
  const match = findRoute(gateway.routes, request.method ?? 'GET', url.pathname);
  if (match === undefined) return answer('MISSING_AUTHENTICATION_TOKEN');
  if (match === 'bad-path') return answer('DEFAULT_4XX');
  // The key is judged from the headers before any of the body is read: a caller without a valid
  // key cannot make the server hold (up to 16 KiB of) its body. Local only: API Gateway reads the
  // body first.
  let authorizer: Record<string, string> | undefined;
  if (match.functionName !== 'apiDocs') {
    if (!hasAuthorization) return answer('UNAUTHORIZED');
    const decision = await gateway.authorization.decide(
      toProxyEvent(request, {
        url,
        route: match.route,
        body: NO_BODY,
        domainName: gateway.domainName,
        requestId,
        arrivedAt,
      }),
    );
    if (decision.outcome !== 'allow')
      return answer(decision.outcome, 'context' in decision ? decision.context : undefined);
    authorizer = decision.context;
    served.plan = authorizer.plan;
  }
  // Allowed: now, and only now, the body (a later answer reads and drops what is left of it).
  if (continuePending) {
    response.writeContinue();
    continuePending = false;
  }
  const body = await readBody(request, bodyDueAt - Date.now());
  if (body === 'too-large') return answerAtTheEdge(EDGE_BODY_TOO_LARGE);
  if (body === 'late') {
    process.stderr.write(
      `local server: request ${requestId}: its body did not arrive within ${gateway.bodyDeadlineMs} ms; connection closed\n`,
    );
    request.socket.destroy();
    return;
  }
  if (body === 'gone') return;
  const event = toProxyEvent(request, {
    url,
    route: match.route,
    body,
    domainName: gateway.domainName,
    requestId,
    arrivedAt,
  });
  if (authorizer !== undefined) event.requestContext.authorizer = authorizer;
  let result: APIGatewayProxyResult;
  served.operation = match.functionName;
  try {
    result = await gateway.run(match.functionName, event, lambdaContext(match.functionName, answerDueAt - Date.now()));
  } catch (error) {
    // A function that throws instead of answering is, to API Gateway, an integration failure.
    process.stderr.write(
      `local server: ${match.functionName} failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    return answer('INTEGRATION_FAILURE');
  }
  writeResult(response, result);
}

function findRoute(
  routes: CompiledRoute[],
  method: string,
  pathname: string,
): { functionName: RoutedFunction; route: RouteMatch } | 'bad-path' | undefined {
  for (const route of routes) {
    const found = route.pattern.exec(pathname);
    if (found === null || route.method !== method) continue;
    if (route.parameterNames.length === 0)
      return { functionName: route.functionName, route: { resourcePath: route.resourcePath, pathParameters: null } };
    const pathParameters: Record<string, string> = {};
    try {
      route.parameterNames.forEach((name, i) => {
        pathParameters[name] = decodeURIComponent(found[i + 1] as string);
      });
    } catch {
      return 'bad-path';
    }
    return { functionName: route.functionName, route: { resourcePath: route.resourcePath, pathParameters } };
  }
  return undefined;
}

const NO_BODY = Buffer.alloc(0);

/**
 * Before an answer given without reading the body. A client that awaits `100 Continue` has sent
 * none and never gets it: the connection is closed after the answer (RFC 9110, 10.1.1), rather than
 * read for a body that may come anyway. Any other body is read and dropped (discardBody).
 */
function leaveBody(request: IncomingMessage, response: ServerResponse, awaitsContinue: boolean, dueAt: number): void {
  if (awaitsContinue) response.setHeader('Connection', 'close');
  else discardBody(request, dueAt);
}

/**
 * Reads and drops what is left of a body answered without it (closing the connection at once could
 * cut the answer off), but closes the connection should the body not be complete by its deadline.
 */
function discardBody(request: IncomingMessage, dueAt: number): void {
  request.resume();
  if (request.complete) return;
  const timer = setTimeout(() => request.socket.destroy(), Math.max(0, dueAt - Date.now()));
  const stop = () => clearTimeout(timer);
  request.once('end', stop);
  request.once('close', stop);
}

/**
 * The body; or 'too-large' once it passes the web ACL's bound (the rest is not kept), 'late' when
 * it is not complete within the deadline, 'gone' when the client went away.
 */
function readBody(request: IncomingMessage, deadlineMs: number): Promise<Buffer | 'too-large' | 'late' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: Buffer | 'too-large' | 'late' | 'gone') => {
      clearTimeout(timer);
      request.removeAllListeners('data');
      resolve(outcome);
    };
    const timer = setTimeout(() => settle('late'), deadlineMs);
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.resume();
        settle('too-large');
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => settle(Buffer.concat(chunks)));
    request.on('error', () => settle('gone'));
    request.on('aborted', () => settle('gone'));
  });
}

function writeResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

function writeGatewayResponse(
  response: ServerResponse,
  type: GatewayResponseType | GatewayResponse,
  requestId: string,
  authorizer?: Record<string, string>,
): void {
  const described = typeof type === 'string' ? GATEWAY_RESPONSES[type] : type;
  const { status, headers, body } = renderErrorAnswer(described, { requestId, ...(authorizer ? { authorizer } : {}) });
  response.writeHead(status, headers);
  response.end(body);
}

function reportWhenAnswered(
  { request, response }: Exchange,
  requestId: string,
  served: { readonly operation?: string; readonly plan?: string },
  onAnswered: (request: AnsweredRequest) => void,
): void {
  const arrived = performance.now();
  // 'close' comes once, after the answer or when the connection went first: unanswered, no line.
  response.once('close', () => {
    if (!response.headersSent) return;
    onAnswered({
      time: Date.now(),
      status: response.statusCode,
      method: request.method ?? 'GET',
      path: pathOf(request),
      durationMs: performance.now() - arrived,
      requestId,
      ...served,
    });
  });
}

/** The request's target without its query, as npm start's log shows it. */
function pathOf(request: IncomingMessage): string {
  const [path = '/'] = (request.url ?? '/').split('?');
  return path;
}

/** A connection, for the answers Node's parser calls for: its responses not yet finished; since when it waits for a request. */
interface Connection {
  since: number;
  readonly responses: Set<ServerResponse>;
}

/** A connection answered straight on its socket, and what the server tracks of it (undefined: nothing). */
interface RawConnection {
  readonly socket: Duplex;
  readonly connection: Connection | undefined;
}

function trackAnswer(connections: WeakMap<Duplex, Connection>, socket: Duplex, response: ServerResponse): void {
  const connection = connections.get(socket);
  if (connection === undefined) return;
  connection.responses.add(response);
  response.once('finish', () => {
    connection.responses.delete(response);
    if (connection.responses.size === 0) connection.since = performance.now();
  });
}

/** A refusal of the request's head, which Node parsed but would serve wrongly or answer bare. */
function refusalOfHead(request: IncomingMessage, refusals: LocalRefusals): GatewayResponse | undefined {
  const raw = request.rawHeaders;
  if (raw.length / 2 > MAX_HEADER_COUNT) return refusals.TOO_MANY_HEADERS;
  // RFC 9112, 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host, and to any request
  // with more than one Host or an invalid one (Node keeps the first Host of several: count them).
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2)
    if ((raw[i] as string).length === 4 && (raw[i] as string).toLowerCase() === 'host') hosts += 1;
  if (hosts > 1) return refusals.HOST_REPEATED;
  if (hosts === 0) return request.httpVersion === '1.1' ? refusals.NO_HOST : undefined;
  return isValidHost(request.headers.host as string) ? undefined : refusals.HOST_INVALID;
}

/** Answers a request with a refusal of the local server's own, as the gateway's are answered. */
function refuse(exchange: Exchange, refusal: GatewayResponse, gateway: Gateway): void {
  const { request, response, awaitsContinue } = exchange;
  const requestId = randomUUID();
  if (gateway.onAnswered !== undefined) reportWhenAnswered(exchange, requestId, {}, gateway.onAnswered);
  leaveBody(request, response, awaitsContinue, Date.now() + gateway.bodyDeadlineMs);
  writeGatewayResponse(response, refusal, requestId);
}

/**
 * What Node's parser gives up on (lib/_http_server.js answers it bare, then closes): headers too
 * large (431), not complete by their deadline (408), anything else it cannot parse (400). Answered
 * in the Error shape, then closed as Node does; a connection that is gone, or whose answer has
 * begun, is only closed. In npm start's log with `-` for the method and path it did not parse,
 * unless the connection never sent a byte (a browser's spare connection, answered 408).
 */
function answerClientError(
  error: NodeJS.ErrnoException,
  raw: RawConnection,
  refusals: LocalRefusals,
  onAnswered: ((request: AnsweredRequest) => void) | undefined,
): void {
  const { socket, connection } = raw;
  // A request of this connection still being answered (pipelined before the bad one) must not get
  // this answer as its own: the connection is closed, unanswered, as for a reset.
  if (error.code === 'ECONNRESET' || !socket.writable || (connection?.responses.size ?? 0) > 0) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? refusals.HEADERS_TOO_LARGE
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? refusals.HEADERS_TOO_SLOW
        : refusals.MALFORMED;
  // (A connection that never sent a byte, answered 408, is a browser's spare one: no log line.)
  answerRaw(raw, refusal, (socket as Socket).bytesRead === 0 ? undefined : onAnswered, {
    method: '-',
    path: '-',
  });
}

/**
 * Answers straight on the connection (there is no response object to answer with), closes it, and
 * reports the answer to npm start's log, timed from when the connection began waiting for it.
 */
function answerRaw(
  { socket, connection }: RawConnection,
  answer: GatewayResponse,
  onAnswered: ((request: AnsweredRequest) => void) | undefined,
  request: { readonly method: string; readonly path: string },
): void {
  const requestId = randomUUID();
  closeAfter(socket, rawAnswer(answer, requestId));
  const durationMs = connection === undefined ? 0 : performance.now() - connection.since;
  onAnswered?.({ time: Date.now(), status: answer.status, ...request, durationMs, requestId });
}

/** How long a connection answered straight on its socket may go on sending before it is closed. */
const LINGER_MS = 1_000;

/**
 * Writes the answer and closes the connection, reading and dropping what the client still sends for
 * a moment: closed with unread input, the connection would be reset, and a reset can make the
 * client's side drop the answer before its reader sees it.
 */
function closeAfter(socket: Duplex, answer: string): void {
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.end(answer);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** An answer written straight on a connection, which has no response object to write it with. */
function rawAnswer(refusal: GatewayResponse, requestId: string): string {
  const { status, headers, body } = renderErrorAnswer(refusal, { requestId });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
