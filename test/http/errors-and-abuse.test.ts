import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFunctionHandlers, type OperationHandlers } from '../../local/server';
import { setLogSink } from '../../shared/log';
import { httpOperation } from '../../shared/http/stack';
import { NoQuery } from '../../shared/pets/schema';
import { type RequestOptions, expectErrorShape, startTestApi, type ApiResponse, type TestApi } from '../support/api';
import { checkResponse } from '../support/contract';

let api: TestApi;
const logLines: string[] = [];
let restoreSink: ReturnType<typeof setLogSink>;

beforeAll(async () => {
  restoreSink = setLogSink((line) => logLines.push(line));
  api = await startTestApi();
});
afterAll(async () => {
  setLogSink(restoreSink);
  await api.close();
});

/** Every answer of the service: a JSON Error body with a 4xx for anything a client sends. */
function expectClientError(response: ApiResponse): void {
  expect(response.status, response.text).toBeGreaterThanOrEqual(400);
  expect(response.status, response.text).toBeLessThan(500);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    status: response.status,
  });
  expect(response.text).not.toMatch(/at .*\.(ts|js):\d+/); // no stack trace
}

describe('unknown routes', () => {
  it.each([
    ['GET', '/v1/nothing'],
    ['GET', '/v1/pets/1/owner'],
    ['DELETE', '/v1/pets/1'],
    ['PUT', '/v1/pets'],
    ['GET', '/pets'],
    ['GET', '/'],
  ])('404 not_found for %s %s', async (method, path) => {
    const response = await api.request(method, `${api.baseUrl.replace(/\/v1$/, '')}${path}`);
    expectErrorShape(response, 404, 'not_found');
  });
});

describe('500 internal_error', () => {
  it('is the Error body with no stack trace and no internal detail, and is logged with the cause', async () => {
    const broken = httpOperation({
      operationId: 'listPets',
      query: NoQuery,
      handle: async () => {
        throw new TypeError('secret internal detail in table pets-internal');
      },
    });
    const handlers = await loadFunctionHandlers();
    const brokenApi = await startTestApi({ ...handlers, listPets: broken } satisfies OperationHandlers);
    try {
      const response = await brokenApi.request('GET', '/pets');
      expectErrorShape(response, 500, 'internal_error');
      expect(response.text).not.toContain('secret');
      expect(response.text).not.toContain('TypeError');
      expect(response.body.message).toContain(response.headers.get('x-request-id'));
      const logged = logLines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.requestId === response.headers.get('x-request-id'));
      expect(logged).toMatchObject({
        level: 'error',
        status: 500,
        error: { name: 'TypeError', message: expect.stringContaining('secret') },
      });
    } finally {
      await brokenApi.close();
    }
  });

  it("a function that crashes outright (throws past the stack) is the gateway's 500 internal_error, not a 503 to retry", async () => {
    const handlers = await loadFunctionHandlers();
    const crashing = async () => {
      throw new Error('the runtime lost the function');
    };
    const brokenApi = await startTestApi({ ...handlers, getPet: crashing } satisfies OperationHandlers);
    try {
      const response = await brokenApi.request('GET', '/pets/1', { responder: 'gateway' });
      expectErrorShape(response, 500, 'internal_error');
      expect(response.headers.get('retry-after')).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.text).not.toContain('runtime lost');
    } finally {
      await brokenApi.close();
    }
  });
});

describe('odd input never gives a 500', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const deepObject = `{"name":"Rex","categoryId":1,"x":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`;
  const bodies: [string, string | Buffer, string][] = [
    ['a deeply nested array', deep, 'application/json'],
    ['a deeply nested unknown field', deepObject, 'application/json'],
    ['a __proto__ key', '{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}', 'application/json'],
    ['a constructor key', '{"name":"Rex","categoryId":1,"constructor":{"prototype":{"x":1}}}', 'application/json'],
    ['a body of 100 KiB', JSON.stringify({ name: 'x'.repeat(100 * 1024), categoryId: 1 }), 'application/json'],
    ['binary bytes', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x81]), 'application/json'],
    [
      'invalid UTF-8 inside JSON',
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","categoryId":1}')]),
      'application/json',
    ],
    ['a lone surrogate escape', '{"name":"\\ud800","categoryId":1}', 'application/json'],
    ['a NUL byte', '{"name":"a\u0000b","categoryId":1,"status":"\u0000"}', 'application/json'],
    ['a huge number', '{"name":"Rex","categoryId":1e400}', 'application/json'],
    ['duplicate keys', '{"name":"Rex","categoryId":1,"categoryId":"x"}', 'application/json'],
  ];

  it.each(bodies)('POST with %s', async (_, body, contentType) => {
    const response = await api.request('POST', '/pets', { body, headers: { 'content-type': contentType } });
    expectClientError(response);
  });

  // RFC 8259 lets a parser ignore a byte order mark; media type parameters are parsed leniently.
  it.each([
    ['a JSON with a byte order mark', '\ufeff{"name":"Rex","categoryId":1}', 'application/json'],
    ['a content type with empty parameters', '{"name":"Rex","categoryId":1}', 'application/json; ;;; charset=utf-8;'],
  ])('POST with %s is accepted', async (_, body, contentType) => {
    const response = await api.request('POST', '/pets', { body, headers: { 'content-type': contentType } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('a __proto__ key is refused by name and pollutes nothing', async () => {
    const response = await api.request('POST', '/pets', {
      body: '{"name":"Rex","categoryId":1,"__proto__":{"polluted":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.body.details).toEqual([{ path: 'body.__proto__', message: 'is not a known field' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    '/pets?__proto__=1',
    '/pets?constructor=1',
    '/pets?limit=%FF',
    '/pets?limit[]=1',
    '/pets?status=available&status=sold',
    `/pets?limit=${'9'.repeat(5000)}`,
    `/pets?cursor=${'A'.repeat(4000)}`,
    '/pets?cursor=%00',
    '/pets/%FF',
    '/pets/%2e%2e',
    '/pets/１２',
    `/pets/${'1'.repeat(400)}`,
  ])('GET %s', async (path) => {
    // A path that is not validly percent-encoded is refused by the gateway, before any function.
    expectClientError(await api.request('GET', path, path === '/pets/%FF' ? { responder: 'gateway' } : {}));
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'a header named %s is just a header',
    async (name) => {
      const listed = await api.request('GET', '/pets?limit=1', { headers: { [name]: 'x' } });
      expect(listed.status).toBe(200);
      const created = await api.request('POST', '/pets', {
        body: { name: 'Odd header', categoryId: 1 },
        headers: { [name]: 'y' },
      });
      expect(created.status).toBe(201);
    },
  );

  it.each([
    ['a key with a line of 10 KiB', `Bearer ${'k'.repeat(10_240)}`],
    ['two schemes', 'Bearer a, Basic b'],
    ['a unicode key', 'Bearer clé'],
  ])('Authorization with %s', async (_, authorization) => {
    const response = await api.request('GET', '/pets', { key: null, headers: { authorization } });
    expectErrorShape(response, 401, 'unauthorized');
  });

  it("a body sent in chunks past 16 KiB is refused by the local web ACL's stand-in with the Error body (413)", async () => {
    const response = await new Promise<{ status: number; headers: Record<string, string>; body: string }>(
      (resolve, reject) => {
        const url = new URL(`${api.baseUrl}/pets`);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer local-free-key' },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body }),
            );
          },
        );
        req.on('error', reject);
        // No Content-Length: chunks, whose size the server learns only as it reads them.
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        for (let i = 0; i < 4; i += 1) req.write(chunk);
        req.end();
      },
    );
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({
      code: 'invalid_request',
      message: 'The request body is larger than this API accepts (16,384 bytes).',
      status: 413,
    });
    checkResponse({
      method: 'POST',
      url: `${api.baseUrl}/pets`,
      status: response.status,
      headers: new Headers(response.headers),
      text: response.body,
    });
  });
});

describe('every answer', () => {
  it.each([
    ["an operation's 200", 'GET', '/pets?limit=1', {}],
    ["an operation's 400", 'GET', '/pets?limit=0', {}],
    ["the gateway's 401", 'GET', '/pets', { key: 'no-such-key' }],
    ["the gateway's 404 for an unknown route", 'GET', '/nowhere', { responder: 'gateway' }],
    ["the gateway's 400 for a malformed path", 'GET', '/pets/%FF', { responder: 'gateway' }],
    ['the document', 'GET', '/openapi.json', { key: null }],
    ['the reference page', 'GET', '/docs', { key: null }],
    ['a reference page asset', 'GET', '/docs/swagger-ui.css', { key: null }],
    ["the docs' 404", 'GET', '/docs/nothing.js', { key: null }],
  ] as const)('carries X-Request-Id and X-Content-Type-Options: nosniff: %s', async (_, method, path, options) => {
    const response = await api.request(method, path, options as RequestOptions);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the request log', () => {
  it('has one JSON line per request with request id, route, status and duration, and never the key', async () => {
    logLines.length = 0;
    const secretish = 'guess-me-please-0123456789';
    const responses = [
      await api.request('GET', '/pets', { key: 'local-pro-key' }),
      await api.request('GET', '/pets', { key: secretish }),
      await api.request('POST', '/pets', { key: 'local-pro-key', body: { name: 'Logged', categoryId: 1 } }),
      await api.request('GET', '/pets/abc', { key: 'local-pro-key' }),
    ];
    const entries = logLines.map((line) => JSON.parse(line));
    expect(entries).toHaveLength(4);
    expect(entries.map((entry) => [entry.requestId, entry.route, entry.status])).toEqual([
      [responses[0]?.headers.get('x-request-id'), 'GET /v1/pets', 200],
      [responses[1]?.headers.get('x-request-id'), 'GET /v1/pets', 401],
      [responses[2]?.headers.get('x-request-id'), 'POST /v1/pets', 201],
      [responses[3]?.headers.get('x-request-id'), 'GET /v1/pets/{petId}', 400],
    ]);
    for (const entry of entries) expect(entry.durationMs).toEqual(expect.any(Number));
    expect(entries.map((entry) => entry.code)).toEqual([undefined, 'unauthorized', undefined, 'invalid_request']);
    const all = logLines.join('\n');
    expect(all).not.toContain('local-pro-key');
    expect(all).not.toContain(secretish);
    expect(entries[0]).toMatchObject({ plan: 'pro', keyId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });
});

describe('the size of an error answer (issue 23, finding 5)', () => {
  const FEW_KB = 4_096;

  it('names at most 20 failing fields, then says how many more: a body of 1,611 unknown fields gets a small 400', async () => {
    const body = Object.fromEntries(Array.from({ length: 1_611 }, (_, i) => [`f${i}`, 1]));
    expect(JSON.stringify(body).length).toBeLessThan(16_384);
    const response = await api.request('POST', '/pets', { body });
    expectErrorShape(response, 400, 'invalid_request');
    const { details, message } = response.body as { details: { path: string; message: string }[]; message: string };
    // name and categoryId are missing too: 1,613 failing fields.
    expect(details).toHaveLength(21);
    expect(details.slice(0, 20).every((detail) => detail.path.startsWith('body.'))).toBe(true);
    expect(details[20]).toEqual({ path: '(more)', message: '1593 more fields fail' });
    expect(message).toMatch(/; and 1593 more\.$/);
    expect(response.text.length).toBeLessThan(FEW_KB);
  });

  it('cuts a field name of any length: one unknown field named with 16,000 characters gets a small 400', async () => {
    const response = await api.request('POST', '/pets', {
      body: { name: 'Rex', categoryId: 1, ['x'.repeat(16_000)]: 1 },
    });
    expectErrorShape(response, 400, 'invalid_request');
    const [detail] = (response.body as { details: { path: string; message: string }[] }).details;
    expect(detail?.path).toBe(`body.${'x'.repeat(94)}…`);
    expect(detail?.path.length).toBe(100);
    expect(response.text.length).toBeLessThan(FEW_KB);
  });

  it('counts a cut path as JSON writes it: 25 unknown fields named with 100 control characters each still get a small 400', async () => {
    const body = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`${String.fromCharCode(i + 1).repeat(100)}`, 1]),
    );
    const response = await api.request('POST', '/pets', { body: { name: 'Rex', categoryId: 1, ...body } });
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.text.length).toBeLessThan(2 * FEW_KB);
  });

  it('cuts the path the docs route repeats: a 15,000-character document name gets a small 404 (issue 36, finding 4)', async () => {
    const response = await api.request('GET', `/docs/${'a'.repeat(15_000)}`, { key: null });
    expectErrorShape(response, 404, 'not_found');
    expect(response.body.message).toBe(`No document answers /v1/docs/${'a'.repeat(90)}….`);
    expect(response.text.length).toBeLessThan(FEW_KB);
  });

  it('answers a query of 1,500 unknown parameters with a small 400', async () => {
    const query = Array.from({ length: 1_500 }, (_, i) => `p${i}=1`).join('&');
    const response = await api.request('GET', `/pets?${query}`);
    expectErrorShape(response, 400, 'invalid_request');
    expect((response.body as { details: unknown[] }).details).toHaveLength(21);
    expect(response.text.length).toBeLessThan(FEW_KB);
  });
});
