import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/api-gateway-event';
import { listPetsEvent, startTestApi, type TestApi } from '../support/api';

/**
 * Issue 23, finding 3: more than one Authorization header, in any spelling and any order, is a
 * 401 (malformed), whatever the values: the authorizer refuses it, the local gateway's cache never
 * answers it from a one-header request's entry, and an operation refuses it even when the
 * authorizer's answer was cached (in AWS the cache key is one header's value).
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

function rawGet(
  headerLines: [string, string][],
): Promise<{ status: number; wwwAuthenticate: string | undefined; body: { code?: string; status?: number } }> {
  const url = new URL(`${api.baseUrl}/pets?limit=1`);
  const headers = [['Host', url.host], ...headerLines].flat();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'GET', headers },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            wwwAuthenticate: response.headers['www-authenticate'],
            body: JSON.parse(text),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('two Authorization headers', () => {
  it.each([
    [
      'a bad key, then a good one',
      [
        ['Authorization', 'Bearer nope'],
        ['Authorization', 'Bearer local-pro-key'],
      ],
    ],
    [
      'a good key, then a bad one',
      [
        ['Authorization', 'Bearer local-pro-key'],
        ['Authorization', 'Bearer nope'],
      ],
    ],
    [
      'two spellings, the good key first',
      [
        ['authorization', 'Bearer local-pro-key'],
        ['Authorization', 'Bearer nope'],
      ],
    ],
    [
      'two spellings, the bad key first',
      [
        ['AUTHORIZATION', 'Bearer nope'],
        ['authorization', 'Bearer local-pro-key'],
      ],
    ],
    [
      'the same good key twice',
      [
        ['Authorization', 'Bearer local-pro-key'],
        ['Authorization', 'Bearer local-pro-key'],
      ],
    ],
    [
      'a fourth spelling, after a good key',
      [
        ['Authorization', 'Bearer local-pro-key'],
        ['AuThOrIzAtIoN', 'Bearer local-pro-key'],
      ],
    ],
  ] as [string, [string, string][]][])('are a 401 (malformed): %s', async (_, lines) => {
    const response = await rawGet(lines);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(response.wwwAuthenticate).toMatch(/^Bearer realm="petstore"/);
  });

  it('are a 401 even right after the same address was allowed with one of them (a cached answer)', async () => {
    expect((await rawGet([['Authorization', 'Bearer local-business-key']])).status).toBe(200);
    expect(
      (
        await rawGet([
          ['Authorization', 'Bearer local-business-key'],
          ['authorization', 'Bearer local-business-key'],
        ])
      ).status,
    ).toBe(401);
    expect(
      (
        await rawGet([
          ['authorization', 'Bearer local-business-key'],
          ['Authorization', 'Bearer nope'],
        ])
      ).status,
    ).toBe(401);
    expect((await rawGet([['Authorization', 'Bearer local-business-key']])).status).toBe(200);
  });
});

describe('an operation reached with two Authorization headers (in AWS, through an authorizer answer cached for one of them)', () => {
  it("refuses it with 401 although the authorizer's context allows the caller", async () => {
    const { handler } = await import('../../functions/listPets/handler');
    const event = listPetsEvent({ limit: '1' });
    expect((await handler(event, lambdaContext('listPets', 10_000))).statusCode).toBe(200);
    event.multiValueHeaders = { Authorization: ['Bearer local-business-key'], authorization: ['Bearer nope'] };
    const refused = await handler(event, lambdaContext('listPets', 10_000));
    expect(refused.statusCode).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'unauthorized', status: 401 });
  });
});
