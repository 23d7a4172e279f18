import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/api-gateway-event';
import { deprecationHeaders, GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { authorizerContextOf, expectErrorShape, testApiOnClock, TEST_KEY, type ApiResponse } from '../support/api';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * getPet after its sunset (2030-12-05T00:00:00Z): from that instant on, by the service's clock,
 * 410 `gone` for every petId, with the deprecation headers, authenticated and counted, and without
 * reading the datastore. The clock is moved across the instant; no deploy, no restart.
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);
const SUNSET = GET_PET_DEPRECATION.sunsetAt.getTime();
const clock = testApiOnClock(SUNSET - 60_000);

const DEPRECATION = deprecationHeaders(GET_PET_DEPRECATION);

function expectDeprecationHeaders(response: ApiResponse): void {
  for (const [name, value] of Object.entries(DEPRECATION))
    expect([name, response.headers.get(name)]).toEqual([name, value]);
}

describe('getPet across its sunset', () => {
  it('answers as before until the instant, then 410 gone for every petId, with its deprecation headers, authenticated and counted', async () => {
    const api = clock.api();
    const created = await api.request('POST', '/pets', { body: { name: 'Old timer', categoryId: 1 } });
    expect(created.status).toBe(201);

    clock.setTime(SUNSET - 1);
    expect((await api.request('GET', `/pets/${created.body.id}`)).status).toBe(200);
    expect((await api.request('GET', '/pets/999999')).status).toBe(404);
    expect((await api.request('GET', '/pets/abc')).status).toBe(400);

    clock.setTime(SUNSET);
    let remaining = Number.POSITIVE_INFINITY;
    for (const petId of [String(created.body.id), '999999', 'abc', '0']) {
      const gone = await api.request('GET', `/pets/${petId}`);
      expectErrorShape(gone, 410, 'gone');
      expect(gone.body.message).toContain('/v1/pets');
      expectDeprecationHeaders(gone);
      const left = Number(gone.headers.get('x-ratelimit-remaining'));
      expect(left).toBeLessThan(remaining); // counted like any request
      remaining = left;
    }
    // Still authenticated: no key is a 401 (the gateway's), not a 410.
    expectErrorShape(await api.request('GET', `/pets/${created.body.id}`, { key: null }), 401, 'unauthorized');
    // The successor goes on.
    const listed = await api.request('GET', '/pets');
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(created.body);

    clock.setTime(SUNSET + 365 * 24 * 3600 * 1000);
    expectErrorShape(await api.request('GET', `/pets/${created.body.id}`), 410, 'gone');
  });

  it('does not read the datastore: with every GetItem frozen, the 410 comes at once', async () => {
    clock.setTime(SUNSET + 1_000);
    const { handler } = (await import('../../functions/getPet/handler')) as unknown as {
      handler: (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;
    };
    proxy.inject('hang', ['GetItem']);
    const readsBefore = proxy.seen.get('GetItem') ?? 0;
    const event = {
      httpMethod: 'GET',
      resource: '/pets/{petId}',
      path: '/pets/1',
      pathParameters: { petId: '1' },
      headers: { Authorization: `Bearer ${TEST_KEY}` },
      multiValueHeaders: { Authorization: [`Bearer ${TEST_KEY}`] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        requestId: 'sunset-1',
        path: '/v1/pets/1',
        identity: { sourceIp: '127.0.0.1' },
        authorizer: authorizerContextOf(TEST_KEY),
      },
    } as unknown as APIGatewayProxyEvent;
    const started = Date.now();
    const response = await handler(event, lambdaContext('sunset', 3_000));
    expect(response.statusCode).toBe(410);
    expect(response.headers).toMatchObject(DEPRECATION);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(proxy.seen.get('GetItem') ?? 0).toBe(readsBefore);
  });
});
