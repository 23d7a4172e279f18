import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import { principalContext } from '../../shared/auth/authorizer-contract';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { setClock } from '../../shared/clock';
import { DEMO_KEYS } from '../../local/demo-keys';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import {
  startLocalServer,
  type LocalServer,
  type LocalServerOptions,
  type OperationHandlers,
} from '../../local/server';
import { checkResponse, type Responder } from './contract';

export const FREE_KEY = 'local-free-key';
/** The default key of test requests: the enterprise demo key's 5,000 a minute leave the tests room. */
export const TEST_KEY = 'local-enterprise-key';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is empty). */
  // biome-ignore lint/suspicious/noExplicitAny: a JSON body as each test reads it, whatever the operation answered
  body: any;
}

export interface TestApi {
  readonly baseUrl: string;
  readonly server: LocalServer;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  /** Bearer key; TEST_KEY unless given, none when null. */
  key?: string | null;
  /** Sent as JSON unless a string or Buffer. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Who is expected to answer: 'gateway' for requests API Gateway itself refuses before any
   * function runs (malformed paths, oversized bodies), whose answer is the Error body only.
   */
  responder?: Responder;
}

/** The local server (the same one `npm start` runs) on a free port, serving this file's table. */
export async function startTestApi(
  handlers?: OperationHandlers,
  options: Pick<LocalServerOptions, 'functionTimeoutMs'> = {},
): Promise<TestApi> {
  const server = await startLocalServer({ port: 0, ...options, ...(handlers ? { handlers } : {}) });
  return {
    baseUrl: server.baseUrl,
    server,
    request: (method, path, options) => send(server.baseUrl, method, path, options),
    close: () => server.close(),
  };
}

/** One request; its response is checked against the interface description before it is returned. */
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? TEST_KEY : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
    else {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
  }
  Object.assign(headers, options.headers);
  const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  checkResponse({ method, url, status: response.status, headers: response.headers, text }, options.responder);
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** The Error body of the interface, exactly: code, message, status (= HTTP status), optional details. */
export function expectErrorShape(response: ApiResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body).toEqual({
    code,
    message: expect.any(String),
    status,
    ...(response.body?.details === undefined ? {} : { details: expect.any(Array) }),
  });
  expect(response.body.message.length).toBeGreaterThan(0);
}

/**
 * This file's local server on a clock the test moves (rate-limit windows, suspensions and the key
 * cache all read it). Registers its own set-up and tear-down.
 */
export function testApiOnClock(startMs: number): {
  api: () => TestApi;
  setTime: (ms: number) => void;
  time: () => number;
} {
  let nowMs = startMs;
  let api: TestApi | undefined;
  let restoreClock: (() => void) | undefined;
  beforeAll(async () => {
    restoreClock = setClock(() => nowMs);
    api = await startTestApi();
  });
  afterAll(async () => {
    restoreClock?.();
    await api?.close();
  });
  return {
    api: () => api as TestApi,
    setTime: (ms) => {
      nowMs = ms;
    },
    time: () => nowMs,
  };
}

/**
 * `requestContext.authorizer` as API Gateway passes it to a function once the authorizer allowed a
 * demo key: for tests that invoke a handler directly.
 */
export function authorizerContextOf(demoKey: string): Record<string, string> {
  const demo = DEMO_KEYS.find((candidate) => candidate.apiKey === demoKey);
  if (demo === undefined) throw new Error(`${demoKey} is not a demo key`);
  const keyId = keyIdOf(hashApiKey(demo.apiKey));
  const limits = demo.limits ?? STANDARD_PLAN_LIMITS[demo.plan as Exclude<typeof demo.plan, 'enterprise'>];
  return { principalId: keyId, ...principalContext({ keyId, plan: demo.plan, limits }) };
}

/**
 * `GET /v1/pets` as API Gateway hands it to listPets once the authorizer allowed the demo
 * Business key: for tests that invoke the handler (or its bundle) directly.
 */
export function listPetsEvent(query: Record<string, string>, requestId = 'list-pets-event'): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    path: '/pets',
    resource: '/pets',
    headers: { Authorization: 'Bearer local-business-key' },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      domainName: 'example.com',
      path: '/v1/pets',
      identity: { sourceIp: '127.0.0.1' },
      authorizer: authorizerContextOf('local-business-key'),
    },
  } as unknown as APIGatewayProxyEvent;
}
