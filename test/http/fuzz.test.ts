import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { nameText } from '../support/boundary-values';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api';
import { exchange, head } from '../support/raw-http';
import { runSeed } from '../support/run-seed';

/**
 * No input produces a 5xx: every input surface (header names and values, query, path, body
 * bytes, JSON shapes around NewPet with mutations, and the request line itself over a raw socket)
 * is fuzzed with fast-check through the local server, a few thousand cases a run. Each run draws a new seed and prints it; FUZZ_SEED=<n>
 * replays a run. Bounded in time per surface so that `npm test` stays fast.
 */
const SEED = runSeed('fuzz');
const TIME_LIMIT_MS = 15_000;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

interface Raw {
  status: number;
  body: string;
}

/** One request exactly as given (fetch would refuse or rewrite some of it). */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Raw> {
  const url = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: `/v1${path}`, headers, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Not a 5xx, and every error is the Error body with its own status. */
function expectNoServerError(answer: Raw): void {
  expect(answer.status, answer.body).toBeLessThan(500);
  if (answer.status >= 400) {
    const error = JSON.parse(answer.body) as { code: unknown; message: unknown; status: unknown };
    expect(error).toMatchObject({ code: expect.any(String), message: expect.any(String), status: answer.status });
  }
}

const params = (numRuns: number) => ({
  seed: SEED,
  numRuns,
  interruptAfterTimeLimit: TIME_LIMIT_MS,
  markInterruptAsFailure: false,
});
const auth = { authorization: `Bearer ${TEST_KEY}` };
const json = { ...auth, 'content-type': 'application/json' };

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split('');
const headerName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'Content-Type',
    'content-length-x',
    'Authorization',
    'X-Forwarded-Proto',
    'Host',
    'Idempotency-Key',
    'idempotency-key',
  ),
  fc.array(fc.constantFrom(...TOKEN_CHARS), { minLength: 1, maxLength: 40 }).map((chars) => chars.join('')),
);
// What Node lets a client send in a header value: visible ASCII, space and tab (no CR, LF, NUL).
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 200,
});

describe('fuzzing every input surface never gives a 5xx', () => {
  it('header names and values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(headerName, headerValue, { maxKeys: 6 }), fc.boolean(), async (extra, create) => {
        const headers = { ...(create ? json : auth) };
        for (const [name, value] of Object.entries(extra)) {
          // Names Node itself would refuse to send, and a Content-Length it would contradict, are not ours to test.
          if (name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding') continue;
          Object.defineProperty(headers, name, { value, enumerable: true });
        }
        expectNoServerError(
          await send(
            create ? 'POST' : 'GET',
            '/pets',
            headers,
            create ? Buffer.from('{"name":"Fuzz","categoryId":1}') : undefined,
          ),
        );
      }),
      params(300),
    );
  }, 60_000);

  it('the query string', async () => {
    const part = fc.oneof(
      fc.constantFrom('limit', 'status', 'cursor', '__proto__', 'limit[]', ''),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(part, fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String))), { maxLength: 5 }),
        fc.boolean(),
        async (pairs, raw) => {
          const query = pairs
            .map(([name, value]) =>
              raw ? `${escape(name)}=${escape(value)}` : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
            )
            .join('&');
          expectNoServerError(await send('GET', `/pets?${query}`, auth));
        },
      ),
      params(500),
    );
  }, 60_000);

  it('the path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 30 }).map(encodeURIComponent),
          fc
            .uint8Array({ maxLength: 12 })
            .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
        ),
        async (segment) => {
          expectNoServerError(await send('GET', `/pets/${segment}`, auth));
        },
      ),
      params(400),
    );
  }, 60_000);

  it('body bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        expectNoServerError(await send('POST', '/pets', json, Buffer.from(bytes)));
      }),
      params(400),
    );
  }, 60_000);

  it('JSON shapes around NewPet, with mutations', async () => {
    // Names around the name rule too: hidden, format-only and near-miss characters (test/support/boundary-values.ts).
    const field = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 120 }),
      nameText,
      fc.integer(),
      fc.double(),
      fc.constantFrom('available', 'pending', 'sold', 'staus', 2 ** 53, -1, 0),
    );
    const newPet = fc.record(
      {
        name: field,
        categoryId: field,
        status: field,
        extra: fc.dictionary(fc.string({ maxLength: 8 }), field, { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(newPet, fc.constantFrom('object', 'duplicate', 'wrapped'), async ({ extra, ...pet }, shape) => {
        const object = { ...pet, ...(extra ?? {}) };
        const text =
          shape === 'object'
            ? JSON.stringify(object)
            : shape === 'duplicate'
              ? JSON.stringify(object).replace(/^\{/, '{"name":"x",')
              : JSON.stringify([object]);
        expectNoServerError(await send('POST', '/pets', json, Buffer.from(text)));
      }),
      params(500),
    );
  }, 60_000);

  it('the request line: methods, targets and versions over a raw socket (issue 49, finding 3)', async () => {
    const { port } = api.server;
    const method = fc.oneof(
      fc.constantFrom(
        'GET',
        'POST',
        'HEAD',
        'OPTIONS',
        'PUT',
        'DELETE',
        'PATCH',
        'TRACE',
        'CONNECT',
        'PRI',
        'get',
        'M-SEARCH',
        'PROPFIND',
      ),
      fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 10 }),
    );
    // What may stand in a target (visible ASCII but space), a few non-ASCII characters, and the pieces that broke it.
    const targetChar = fc.oneof(
      fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('é', '\u00ff', '%', '[', ']', '@', ':', '/', '\\'),
    );
    const target = fc.oneof(
      fc.constantFrom(
        '//[',
        'http://[/v1/pets',
        '//%',
        'http://%zz/',
        '//a:b@c:99999/',
        '*',
        '/',
        '/v1/pets',
        '/v1/pets?limit=1',
        '/v1/pets/1',
        'http://localhost/v1/pets',
        'https://x/v1/pets?status=sold',
        'a:b',
        '?',
        'http:',
        'http://',
        '//',
        '\\\\[',
        'localhost:80',
      ),
      fc
        .tuple(
          fc.constantFrom(
            '',
            '/',
            '//',
            '/v1/',
            '/v1/pets/',
            '/v1/pets?',
            'http://',
            'https://',
            'http://[',
            '//[',
            '\\\\',
            '*',
            'http://a:b@',
          ),
          fc.string({ unit: targetChar, maxLength: 24 }),
        )
        .map(([prefix, rest]) => prefix + rest),
    );
    const version = fc.constantFrom(
      'HTTP/1.1',
      'HTTP/1.0',
      'HTTP/0.9',
      'HTTP/2.0',
      'HTTP/1.2',
      'HTTP/3',
      'http/1.1',
      'HTTP/1.1 ',
      'HTTP/11',
      '',
    );
    await fc.assert(
      fc.asyncProperty(method, target, version, fc.boolean(), async (verb, path, httpVersion, withHost) => {
        const line = httpVersion === '' ? `${verb} ${path}` : `${verb} ${path} ${httpVersion}`;
        const answer = await exchange(
          port,
          head(line, [...(withHost ? [`Host: 127.0.0.1:${port}`] : []), `Authorization: Bearer ${TEST_KEY}`]),
        );
        // Every request line gets an answer, never a 5xx, with the headers of every local answer.
        const shown = `${JSON.stringify(line)} answered: ${answer.raw.slice(0, 300)}`;
        expect(answer.status, shown).toBeGreaterThanOrEqual(200);
        expect(answer.status, shown).toBeLessThan(500);
        expect(answer.headers.get('x-request-id'), shown).toMatch(/^[0-9a-f-]{36}$/);
        expect(answer.headers.get('x-content-type-options'), shown).toBe('nosniff');
        if (answer.status >= 400 && verb !== 'HEAD')
          expect(answer.body, shown).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
            status: answer.status,
          });
      }),
      { ...params(1_000), interruptAfterTimeLimit: 4_000 },
    );
  }, 30_000);
});
