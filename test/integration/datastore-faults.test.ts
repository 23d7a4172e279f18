import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/api-gateway-event';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { freePort } from '../../local/dynamodb-local';
import { authorizerContextOf, expectErrorShape, startTestApi, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * The handlers talk to DynamoDB Local through a fault-injecting proxy: throttling, dropped
 * connections and a datastore that never answers must give 503 service_unavailable with
 * Retry-After, within the function's time, and leave nothing half-written.
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  const { config } = await import('../../shared/config');
  expect(config.dynamoDbEndpoint).toBe(proxy.endpoint);
});
afterAll(() => api.close());

function expectUnavailable(response: Awaited<ReturnType<TestApi['request']>>): void {
  expectErrorShape(response, 503, 'service_unavailable');
  expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

describe('when DynamoDB throttles or fails', () => {
  it('answers 503 after the SDK retries a throttled write while its id is young (250 ms), or draws a new id after, three at most; stores nothing', async () => {
    const before = await db.storedPets();
    proxy.inject('throttle', ['PutItem']);
    // The SDK's backoff is random (full jitter): at its shortest, every attempt it allows is sent...
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    try {
      expectUnavailable(await api.request('POST', '/pets', { body: { name: 'Throttled', categoryId: 1 } }));
      expect(proxy.seen.get('PutItem')).toBe(3); // the SDK's bounded attempts
      // ...at its longest (the first wait up to a second), the retry would carry an id too old: not
      // sent, and since DynamoDB wrote nothing, a new id is drawn: three draws, one attempt each.
      random.mockReturnValue(0.999);
      expectUnavailable(await api.request('POST', '/pets', { body: { name: 'Throttled', categoryId: 1 } }));
      expect(proxy.seen.get('PutItem')).toBe(3 + 3);
    } finally {
      random.mockRestore();
    }
    expect(await db.storedPets()).toEqual(before);

    proxy.clear();
    const retried = await api.request('POST', '/pets', { body: { name: 'Throttled', categoryId: 1 } });
    expect(retried.status).toBe(201);
    expect((await db.storedPets()).filter((pet) => pet.name === 'Throttled')).toHaveLength(1);
  });

  it("answers 201 when the reply to the write is lost after DynamoDB stored the pet (the SDK's retry finds it there): one pet, not a 500", async () => {
    const before = await db.storedPets();
    const putsBefore = proxy.seen.get('PutItem') ?? 0;
    proxy.inject('lose-reply-once', ['PutItem']);
    const response = await api.request('POST', '/pets', { body: { name: 'Lost reply', categoryId: 4 } });
    expect(response.status).toBe(201);
    expect((proxy.seen.get('PutItem') ?? 0) - putsBefore).toBe(2); // the attempt whose reply was lost, and the SDK's retry
    const stored = (await db.storedPets()).filter((pet) => pet.name === 'Lost reply');
    expect(stored).toHaveLength(1);
    expect(response.body).toEqual({ id: stored[0]?.id, name: 'Lost reply', categoryId: 4, status: 'available' });
    expect((await db.storedPets()).length).toBe(before.length + 1);
  });

  it('answers 503 when reads are throttled', async () => {
    proxy.inject('throttle', ['Query']);
    expectUnavailable(await api.request('GET', '/pets'));
  });

  it('answers 503 when the connection drops', async () => {
    proxy.inject('reset', ['GetItem']);
    expectUnavailable(await api.request('GET', '/pets/1'));
  });

  it('answers 503 when the key lookup itself cannot reach the datastore (fails closed, not open)', async () => {
    proxy.inject('reset', ['GetItem']);
    // The authorizer fails, so the gateway answers (AUTHORIZER_CONFIGURATION_ERROR), before any function runs.
    const response = await api.request('GET', '/pets', { key: 'local-pro-key', responder: 'gateway' });
    expectUnavailable(response);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    proxy.clear();
    // Nothing of the failure was remembered: the key works as soon as the datastore is back.
    expect((await api.request('GET', '/pets', { key: 'local-pro-key' })).status).toBe(200);
  });

  it('fails closed when the rate-limit counters cannot be written: 503, never unlimited', async () => {
    proxy.inject('reset', ['UpdateItem']);
    const response = await api.request('GET', '/pets');
    expectUnavailable(response);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    proxy.inject('throttle', ['UpdateItem']);
    const before = await db.storedPets();
    expectUnavailable(await api.request('POST', '/pets', { body: { name: 'Uncounted', categoryId: 1 } }));
    expect(await db.storedPets()).toEqual(before);
  });

  it('answers 503 within 10 s through the local server when the rate counters never answer (no call waits forever)', async () => {
    proxy.inject('hang', ['UpdateItem']);
    const started = Date.now();
    const response = await api.request('GET', '/pets/1');
    expect(Date.now() - started).toBeLessThan(10_000);
    expectUnavailable(response);
  }, 20_000);

  it("answers 503 within 10 s when the authorizer's key lookup never answers", async () => {
    proxy.inject('hang', ['GetItem']);
    const started = Date.now();
    const response = await api.request('GET', '/pets', { key: 'local-free-key', responder: 'gateway' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expectUnavailable(response);
  }, 20_000);

  it("answers 503 within 10 s of the request's arrival when its key lookup was slow and then its own calls never answer: the function has what is left of the 10 s", async () => {
    // A key of its own, so that the authorizer looks it up (no cached answer).
    const key = `slow-lookup-${randomUUID()}`;
    await new KeyRegistry(db.documentClient, db.tableName).register(key, 'pro');
    proxy.hold(['GetItem']);
    try {
      const started = Date.now();
      const answered = api.request('GET', '/pets/1', { key });
      expect(await proxy.held(1)).toEqual(['GetItem APIKEY']);
      // The lookup answers late (within its own bound of 4 s against DynamoDB Local), and the key is allowed...
      await sleep(2_500);
      // ...then getPet's counter and read never answer.
      proxy.inject('hang', ['UpdateItem', 'GetItem']);
      proxy.release({ stopHolding: true });
      const response = await answered;
      expect(Date.now() - started).toBeLessThan(10_000);
      expectUnavailable(response);
    } finally {
      proxy.release({ stopHolding: true });
    }
  }, 20_000);

  it('answers 503 before the Lambda timeout when DynamoDB never answers', async () => {
    proxy.inject('hang', ['Query']);
    const { handler } = await import('../../functions/listPets/handler');
    const event = {
      httpMethod: 'GET',
      path: '/pets',
      resource: '/pets',
      headers: { Authorization: 'Bearer local-business-key' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        requestId: 'hang-test',
        domainName: 'localhost',
        path: '/v1/pets',
        authorizer: authorizerContextOf('local-business-key'),
      },
    } as unknown as APIGatewayProxyEvent;
    const started = Date.now();
    const response = await handler(event, lambdaContext('listPets', 1_500));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(response.headers?.['Retry-After']).toBe('1');
  });
});

describe('when DynamoDB is not there at all', () => {
  it('answers 503 rather than hanging or failing with 500', async () => {
    const closedPort = await freePort();
    const { createDynamoDbClient } = await import('../../shared/dynamodb/client');
    const { DynamoDbPetRepository } = await import('../../shared/pets/repository');
    const { ServiceUnavailableError } = await import('../../shared/errors');
    const repository = new DynamoDbPetRepository(
      createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: `http://127.0.0.1:${closedPort}` }),
      db.tableName,
    );
    await expect(repository.get(1)).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
