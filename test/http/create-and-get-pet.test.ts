import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestApi, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';

let api: TestApi;
const db = testDatabase();

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /v1/pets on an empty store', () => {
  it('200 with an empty array and no Link header', async () => {
    const response = await api.request('GET', '/pets');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers.get('link')).toBeNull();
  });
});

describe('POST /v1/pets', () => {
  it('201 with the Pet, its assigned id, status available by default, and Location', async () => {
    const response = await api.request('POST', '/pets', { body: { name: '  Rex ', categoryId: 3 } });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(response.headers.get('location')).toBe(`/v1/pets/${response.body.id}`);
  });

  it('keeps a given status and gives increasing ids', async () => {
    const first = await api.request('POST', '/pets', { body: { name: 'A', categoryId: 1, status: 'pending' } });
    const second = await api.request('POST', '/pets', { body: { name: 'B', categoryId: 1, status: 'sold' } });
    expect(first.body.status).toBe('pending');
    expect(second.body.status).toBe('sold');
    expect(second.body.id).toBeGreaterThan(first.body.id);
  });

  it('accepts unicode names and a charset parameter', async () => {
    const response = await api.request('POST', '/pets', {
      body: JSON.stringify({ name: 'Pépé 🐶 名前', categoryId: 1 }),
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
    });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe('Pépé 🐶 名前');
  });

  it('200 parallel creates: 200 distinct ids, all readable', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.request('POST', '/pets', { key: 'local-enterprise-key', body: { name: `Parallel ${i}`, categoryId: 2 } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(201));
    const ids = responses.map((r) => r.body.id as number);
    expect(new Set(ids).size).toBe(200);
    const reads = await Promise.all(
      ids.map((id) => api.request('GET', `/pets/${id}`, { key: 'local-enterprise-key' })),
    );
    reads.forEach((read, i) => {
      expect(read.status).toBe(200);
      expect(read.body).toEqual(responses[i]?.body);
    });
  });

  it.each<[string, unknown, string[]]>([
    ['an empty object', {}, ['body.name', 'body.categoryId']],
    ['an empty name', { name: '', categoryId: 1 }, ['body.name']],
    ['a name of white space only', { name: '   ', categoryId: 1 }, ['body.name']],
    ['a name of 101 characters', { name: 'n'.repeat(101), categoryId: 1 }, ['body.name']],
    ['a numeric name', { name: 12, categoryId: 1 }, ['body.name']],
    ['a string categoryId', { name: 'Rex', categoryId: '1' }, ['body.categoryId']],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, ['body.categoryId']],
    ['a zero categoryId', { name: 'Rex', categoryId: 0 }, ['body.categoryId']],
    ['an unsafe categoryId', { name: 'Rex', categoryId: 9007199254740992 }, ['body.categoryId']],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, ['body.status']],
    ['an unknown field', { name: 'Rex', categoryId: 1, staus: 'sold' }, ['body.staus']],
    ['a client-chosen id', { id: 5, name: 'Rex', categoryId: 1 }, ['body.id']],
    ['an array', [{ name: 'Rex', categoryId: 1 }], ['body']],
    ['null', null, ['body']],
    ['a string', 'Rex', ['body']],
  ])('400 invalid_request for %s, naming every failing field', async (_, body, paths) => {
    const response = await api.request('POST', '/pets', {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.details.map((d: { path: string }) => d.path)).toEqual(paths);
    for (const path of paths) expect(response.body.message).toContain(path);
  });

  it.each<[string, string | undefined, string]>([
    ['malformed JSON', '{"name": "Rex",', 'application/json'],
    ['an empty body', '', 'application/json'],
    ['no body', undefined, 'application/json'],
    ['a text/plain body', '{"name":"Rex","categoryId":1}', 'text/plain'],
    ['a form body', 'name=Rex&categoryId=1', 'application/x-www-form-urlencoded'],
    ['a Latin-1 charset', '{"name":"Rex","categoryId":1}', 'application/json; charset=iso-8859-1'],
    ['a Content-Type with an unterminated quote', '{"name":"Rex","categoryId":1}', 'application/json; charset="latin1'],
    [
      'a Content-Type parameter given twice',
      '{"name":"Rex","categoryId":1}',
      'application/json; charset=utf-8; charset=utf-8',
    ],
    [
      'a Content-Type parameter given twice in other cases',
      '{"name":"Rex","categoryId":1}',
      'application/json; charset=utf-8; CHARSET="utf-8"',
    ],
    ['a Content-Type that is not a media type', '{"name":"Rex","categoryId":1}', 'application/json, text/plain'],
  ])('400 invalid_request for %s', async (_, body, contentType) => {
    const response = await api.request('POST', '/pets', { body, headers: { 'content-type': contentType } });
    expectErrorShape(response, 400, 'invalid_request');
  });

  it.each([
    ['{"name":"a","name":"b","categoryId":1}', 'body.name'],
    ['{"name":"Rex","categoryId":1,"categoryId":1}', 'body.categoryId'],
    ['{"name":"Rex","categoryId":1,"status":"sold","stat\\u0075s":"sold"}', 'body.status'],
  ])('400 invalid_request for a JSON member given twice: %s (I-JSON)', async (body, path) => {
    const before = await db.storedPets();
    const response = await api.request('POST', '/pets', { body, headers: { 'content-type': 'application/json' } });
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.details).toEqual([{ path, message: 'is given more than once' }]);
    expect(await db.storedPets()).toEqual(before);
  });

  it('400 invalid_request for two Content-Type headers', async () => {
    const url = new URL(`${api.baseUrl}/pets`);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: 'Bearer local-enterprise-key' },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.setHeader('Content-Type', ['application/json', 'application/json']);
      req.on('error', reject);
      req.end('{"name":"Twice","categoryId":1}');
    });
    expect(status).toBe(400);
    expect(JSON.parse(body).details).toEqual([{ path: 'header.content-type', message: 'must be given once' }]);
  });

  it('400 when Content-Type is missing', async () => {
    const response = await api.request('POST', '/pets', { body: Buffer.from('{"name":"Rex","categoryId":1}') });
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.details).toEqual([
      { path: 'header.content-type', message: expect.stringContaining('application/json') },
    ]);
  });

  it('401 unauthorized with an unknown key, checked before the body', async () => {
    const response = await api.request('POST', '/pets', { key: 'no-such-key', body: { nonsense: true } });
    expectErrorShape(response, 401, 'unauthorized');
    // The gateway's UNAUTHORIZED answer: the authorizer refused the key (no function ran). One
    // challenge serves it and "no Authorization header", which API Gateway answers itself.
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves nothing behind when refused', async () => {
    const before = await db.storedPets();
    await api.request('POST', '/pets', { body: { name: '', categoryId: 1 } });
    await api.request('POST', '/pets', { key: null, body: { name: 'NoKey', categoryId: 1 } });
    expect(await db.storedPets()).toEqual(before);
  });
});

describe('GET /v1/pets/{petId} (deprecated)', () => {
  const deprecation = {
    deprecation: '@1795305600',
    sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
    link: '</v1/pets>; rel="successor-version"',
  };
  const expectDeprecationHeaders = (headers: Headers) => {
    for (const [name, value] of Object.entries(deprecation)) expect(headers.get(name)).toBe(value);
  };

  it('200 with the Pet and the Deprecation, Sunset and successor Link headers', async () => {
    const created = await api.request('POST', '/pets', {
      body: { name: 'Fetch me', categoryId: 7, status: 'pending' },
    });
    const response = await api.request('GET', `/pets/${created.body.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created.body);
    expectDeprecationHeaders(response.headers);
  });

  it('404 not_found for an id nobody has, still marked deprecated', async () => {
    const response = await api.request('GET', '/pets/9007199254740991');
    expectErrorShape(response, 404, 'not_found');
    expectDeprecationHeaders(response.headers);
  });

  it.each(['0', '-1', 'abc', '1.5', '01', '9007199254740992', '1e3', '%20'])(
    '400 invalid_request for the malformed id %j',
    async (id) => {
      const response = await api.request('GET', `/pets/${id}`);
      expectErrorShape(response, 400, 'invalid_request');
      expect(response.body.details[0].path).toBe('path.petId');
    },
  );

  it('401 unauthorized with a malformed Authorization header, from the gateway: no function runs, so no Deprecation', async () => {
    const response = await api.request('GET', '/pets/1', {
      key: null,
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expectErrorShape(response, 401, 'unauthorized');
    // Gateway responses belong to the whole API, not to one operation (as in AWS).
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('names with hidden characters (issue 23, finding 4)', () => {
  it.each([
    ['a NUL', 'Re\u0000x'],
    ['a right-to-left override', 'cat\u202Egnp.exe'],
    ['a bell and terminal escape codes', '\u0007\u001b[31mred'],
    ['NEL alone', '\u0085'],
    ['zero width spaces only', '\u200B\u200B'],
    ['101 characters with a NUL (one detail: the first rule that fails)', `${'x'.repeat(101)}\u0000`],
  ])('400 naming body.name once for %s', async (_, name) => {
    const response = await api.request('POST', '/pets', { body: { name, categoryId: 1 } });
    expectErrorShape(response, 400, 'invalid_request');
    expect((response.body as { details: { path: string }[] }).details.map((detail) => detail.path)).toEqual([
      'body.name',
    ]);
  });

  it.each([
    ['an emoji with joiners', '👨\u200d👩\u200d👧'],
    ['combining marks', 'Re\u0301x'],
    ['another script', '雷克斯'],
  ])('201 for %s', async (_, name) => {
    const response = await api.request('POST', '/pets', { body: { name, categoryId: 1 } });
    expect(response.status).toBe(201);
    expect((response.body as { name: string }).name).toBe(name);
  });
});
