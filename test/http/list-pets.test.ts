import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../shared/pets/schema';
import { lambdaContext } from '../../local/api-gateway-event';
import { expectErrorShape, listPetsEvent, send, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
const pets: Pet[] = [];
const STATUSES = ['available', 'pending', 'sold'] as const;

beforeAll(async () => {
  api = await startTestApi();
  for (let i = 0; i < 250; i += 1) {
    const response = await api.request('POST', '/pets', {
      body: { name: `Pet ${i}`, categoryId: 1 + (i % 5), status: STATUSES[i % 3] },
    });
    expect(response.status).toBe(201);
    pets.push(response.body);
  }
});

afterAll(() => api.close());

/** Follows `Link: rel="next"` from a first URL until there is none, as a client would. */
async function walk(firstPath: string): Promise<{ seen: Pet[]; pages: number; links: string[] }> {
  const seen: Pet[] = [];
  const links: string[] = [];
  let url: string | undefined = `${api.baseUrl}${firstPath}`;
  let pages = 0;
  while (url !== undefined) {
    const response = await send(api.baseUrl, 'GET', url);
    expect(response.status).toBe(200);
    seen.push(...response.body);
    pages += 1;
    const link = response.headers.get('link');
    if (link !== null) links.push(link);
    url = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    if (link !== null) expect(url).toBeDefined();
  }
  return { seen, pages, links };
}

describe('GET /v1/pets', () => {
  it('200: a JSON array of Pet objects, 20 by default, in ascending id order', async () => {
    const response = await api.request('GET', '/pets');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual(pets.slice(0, 20));
    for (const pet of response.body) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });

  it('walks 250 pets with limit 37: each exactly once, in order, with no Link on the last page', async () => {
    const { seen, pages, links } = await walk('/pets?limit=37');
    expect(seen).toEqual(pets);
    expect(pages).toBe(Math.ceil(250 / 37));
    expect(links).toHaveLength(pages - 1);
  });

  it('gives the next page as the same request plus an opaque cursor, as an absolute URL', async () => {
    const response = await api.request('GET', '/pets?status=sold&limit=2');
    const link = response.headers.get('link') as string;
    const next = new URL(/^<([^>]+)>; rel="next"$/.exec(link)?.[1] as string);
    expect(`${next.origin}${next.pathname}`).toBe(`${api.baseUrl}/pets`);
    expect([...next.searchParams.keys()]).toEqual(['limit', 'status', 'cursor']);
    expect(next.searchParams.get('limit')).toBe('2');
    expect(next.searchParams.get('status')).toBe('sold');
  });

  it('filters by status through the whole walk', async () => {
    for (const status of STATUSES) {
      const { seen } = await walk(`/pets?status=${status}&limit=30`);
      expect(seen).toEqual(pets.filter((pet) => pet.status === status));
    }
  });

  it('neither repeats nor skips existing pets when pets are created during the walk', async () => {
    const first = await api.request('GET', '/pets?limit=100');
    const next = /^<([^>]+)>/.exec(first.headers.get('link') as string)?.[1] as string;
    await api.request('POST', '/pets', { body: { name: 'Late', categoryId: 1 } });
    const rest = await walk(next.slice(api.baseUrl.length));
    const ids = [...first.body, ...rest.seen].map((pet: Pet) => pet.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const pet of pets) expect(ids).toContain(pet.id);
  });

  it('takes limit 1 and 100', async () => {
    expect((await api.request('GET', '/pets?limit=1')).body).toHaveLength(1);
    expect((await api.request('GET', '/pets?limit=100')).body).toHaveLength(100);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=1.5', 'query.limit'],
    ['limit=01', 'query.limit'],
    ['limit=0100', 'query.limit'],
    ['limit=', 'query.limit'],
    ['status=lost', 'query.status'],
    ['status=SOLD', 'query.status'],
    ['cursor=garbage', 'query.cursor'],
    ['cursor=', 'query.cursor'],
    ['limit=5&limit=6', 'query.limit'],
    ['stauts=sold', 'query.stauts'],
  ])('400 invalid_request for ?%s, naming %s', async (query, path) => {
    const response = await api.request('GET', `/pets?${query}`);
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.message).toContain(path);
    expect(response.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('400 for a tampered cursor and for a cursor reused with another filter', async () => {
    const link = (await api.request('GET', '/pets?limit=2&status=sold')).headers.get('link') as string;
    const cursor = new URL(/^<([^>]+)>/.exec(link)?.[1] as string).searchParams.get('cursor') as string;
    const [body, tag] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ v: 1, a: 1, s: 'sold' })).toString('base64url')}.${tag}`;
    expect(forged).not.toBe(cursor);
    expectErrorShape(await api.request('GET', `/pets?limit=2&status=sold&cursor=${forged}`), 400, 'invalid_request');
    expectErrorShape(await api.request('GET', `/pets?limit=2&status=pending&cursor=${cursor}`), 400, 'invalid_request');
    expect(body).toBeTruthy();
  });

  it('names every failing parameter in one answer', async () => {
    const response = await api.request('GET', '/pets?limit=0&status=lost&x=1');
    expectErrorShape(response, 400, 'invalid_request');
    expect(response.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'query.limit',
      'query.status',
      'query.x',
    ]);
  });

  it('401 unauthorized without a key', async () => {
    const response = await api.request('GET', '/pets', { key: null });
    expectErrorShape(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });
});

describe('the next-page link', () => {
  /** The first page of one pet, asked for with this Host header (fetch cannot set it): its status, Link and body. */
  async function answerWithHost(host: string): Promise<{ status: number; link: string | undefined; body: string }> {
    await api.request('POST', '/pets', { body: { name: 'Linked 1', categoryId: 1 } });
    await api.request('POST', '/pets', { body: { name: 'Linked 2', categoryId: 1 } });
    const url = new URL(`${api.baseUrl}/pets?limit=1`);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          headers: { host, authorization: 'Bearer local-enterprise-key' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, link: res.headers.link as string | undefined, body }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }
  /** The Link of that page. */
  const linkWithHost = async (host: string): Promise<string> => String((await answerWithHost(host)).link);
  const port = () => new URL(api.baseUrl).port;

  it.each(['evil.example:1', 'evil.example', '127.0.0.1:1', '[::1]:80'])(
    "names the server's own address (localhost and the port it listens on), never the client's Host (%j)",
    async (host) => {
      expect(await linkWithHost(host)).toMatch(
        new RegExp(`^<http://localhost:${port()}/v1/pets\\?limit=1&cursor=[^>]+>; rel="next"$`),
      );
    },
  );

  it("names the server's own address when the Host is the server's by another name", async () => {
    expect(await linkWithHost(`127.0.0.1:${port()}`)).toMatch(
      new RegExp(`^<http://localhost:${port()}/v1/pets\\?limit=1&cursor=[^>]+>; rel="next"$`),
    );
  });

  // (An empty Host, which Node's client replaces with its own, is refused in local-server-refusals.test.ts.)
  it.each(['a>; rel="next", <https://evil.example/x', 'evil.example/x?', 'ex ample.com'])(
    'is never built from a Host that is not a host with an optional port: the request is refused, 400 (%j)',
    async (host) => {
      const answer = await answerWithHost(host);
      expect(answer.link).toBeUndefined();
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({
        code: 'invalid_request',
        message: expect.stringMatching(/Host header is not a host/),
        status: 400,
      });
    },
  );

  it("is built from API Gateway's domain name alone in AWS, never from the Host header", async () => {
    const { handler } = await import('../../functions/listPets/handler');
    const event = listPetsEvent({ limit: '1' });
    event.headers = { ...event.headers, Host: 'evil.example' };
    event.multiValueHeaders = { ...event.multiValueHeaders, Host: ['evil.example'] };
    const withDomain = await handler(event, lambdaContext('listPets', 10_000));
    expect(String(withDomain.headers?.Link)).toMatch(
      /^<https:\/\/example\.com\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/,
    );
    // Without a domain name (API Gateway always gives one), still not the client's words.
    delete (event.requestContext as { domainName?: string }).domainName;
    const withoutDomain = await handler(event, lambdaContext('listPets', 10_000));
    expect(String(withoutDomain.headers?.Link)).not.toContain('evil.example');
  });
});
