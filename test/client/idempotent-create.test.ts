import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStoreClient } from '../../client';
import { retryingFetch } from '../../client/retry';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api';
import { checkResponse } from '../support/contract';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * The typed client's creates are safe to retry: each carries an Idempotency-Key (a fresh UUID v4
 * unless the caller gives one) that the client's own retries keep. Against the local server, with
 * the fault proxy in front of DynamoDB Local.
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Sent {
  readonly key: string | null;
  /** 0 when no answer came. */
  readonly status: number;
}

/**
 * A client whose requests are recorded (key sent, status answered) and whose answers are checked
 * against the document; `transport` stands for the network (fetch unless given).
 */
function recordingClient(
  afterEachAnswer: (sent: Sent) => void = () => {},
  transport: (request: Request) => Promise<Response> = fetch,
) {
  const sent: Sent[] = [];
  const client = createPetStoreClient({
    baseUrl: api.baseUrl,
    apiKey: TEST_KEY,
    random: () => 0,
    sleep: async () => {},
    fetch: async (request) => {
      const key = request.headers.get('idempotency-key');
      let response: Response;
      try {
        response = await transport(request);
      } catch (error) {
        sent.push({ key, status: 0 });
        throw error;
      }
      const copy = response.clone();
      checkResponse({
        method: request.method,
        url: request.url,
        status: copy.status,
        headers: copy.headers,
        text: await copy.text(),
      });
      const record = { key, status: response.status };
      sent.push(record);
      afterEachAnswer(record);
      return response;
    },
  });
  return { client, sent };
}

const petsNamed = async (name: string) => (await db.storedPets()).filter((pet) => pet.name === name);

describe("the typed client's retries without an answer", () => {
  const failing =
    (attempts: Request[]) =>
    async (request: Request): Promise<Response> => {
      attempts.push(request);
      throw new TypeError('fetch failed');
    };
  it('repeat a read or a keyed create until the retries run out, then throw; a create without a key is never repeated', async () => {
    for (const [request, expected] of [
      [new Request('http://api.invalid/v1/pets'), 5],
      [new Request('http://api.invalid/v1/pets', { method: 'POST', headers: { 'Idempotency-Key': 'k' } }), 5],
      [new Request('http://api.invalid/v1/pets', { method: 'POST' }), 1],
    ] as const) {
      const attempts: Request[] = [];
      const send = retryingFetch({ fetch: failing(attempts), sleep: async () => {}, random: () => 0 });
      await expect(send(request)).rejects.toThrow('fetch failed');
      expect([request.method, request.headers.get('idempotency-key'), attempts.length]).toEqual([
        request.method,
        request.headers.get('idempotency-key'),
        expected,
      ]);
    }
  });
});

describe("the typed client's creates", () => {
  it('carry a fresh UUID v4 Idempotency-Key each; reads carry none', async () => {
    const { client, sent } = recordingClient();
    await client.api.POST('/pets', { body: { name: 'Keyed 1', categoryId: 1 } });
    await client.api.POST('/pets', { body: { name: 'Keyed 2', categoryId: 1 } });
    await client.api.GET('/pets', { params: { query: { limit: 1 } } });
    expect(sent.map((request) => request.status)).toEqual([201, 201, 200]);
    const [first, second, read] = sent.map((request) => request.key);
    expect(first).toMatch(UUID_V4);
    expect(second).toMatch(UUID_V4);
    expect(second).not.toBe(first);
    expect(read).toBeNull();
  });

  it('retried after a 503 whose write happened (its reply lost): the retry keeps the key and replays the 201, one pet', async () => {
    // Every reply of the write is lost until the client has had its first answer.
    proxy.inject('lose-reply', ['TransactWriteItems']);
    const { client, sent } = recordingClient(() => proxy.clear());
    const { data, response } = await client.api.POST('/pets', { body: { name: 'Retried create', categoryId: 2 } });
    expect(sent.map((request) => request.status)).toEqual([503, 201]);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const pets = await petsNamed('Retried create');
    expect(pets).toHaveLength(1);
    expect(data).toEqual({ id: pets[0]?.id, name: 'Retried create', categoryId: 2, status: 'available' });
  });

  it('retried after a 503 raised before the write: the retry creates the pet, once', async () => {
    proxy.inject('throttle', ['TransactWriteItems']);
    const { client, sent } = recordingClient(() => proxy.clear());
    const { response } = await client.api.POST('/pets', { body: { name: 'Created on retry', categoryId: 2 } });
    expect(sent.map((request) => request.status)).toEqual([503, 201]);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(await petsNamed('Created on retry')).toHaveLength(1);
  });

  it('retried when the answer is lost (the connection dropped after the server wrote): the same key, the 201 replayed, one pet', async () => {
    let dropped = false;
    const { client, sent } = recordingClient(undefined, async (request) => {
      const response = await fetch(request);
      if (dropped) return response;
      dropped = true;
      await response.body?.cancel();
      throw new TypeError('fetch failed'); // what fetch throws when the connection drops
    });
    const { data, response } = await client.api.POST('/pets', { body: { name: 'Answer lost', categoryId: 2 } });
    expect(sent.map((request) => request.status)).toEqual([0, 201]);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const pets = await petsNamed('Answer lost');
    expect(pets).toEqual([expect.objectContaining({ id: data?.id })]);
  });

  it('retried on 409 idempotency_in_progress with the same key, after Retry-After', async () => {
    proxy.inject('transaction-conflict', ['TransactWriteItems']);
    const { client, sent } = recordingClient(() => proxy.clear());
    const { response } = await client.api.POST('/pets', { body: { name: 'After a conflict', categoryId: 2 } });
    expect(sent.map((request) => request.status)).toEqual([409, 201]);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(response.status).toBe(201);
    expect(await petsNamed('After a conflict')).toHaveLength(1);
  });

  it('keep a key the caller gives, so that a create retried by the caller itself is safe too', async () => {
    const { client, sent } = recordingClient();
    const key = 'order-4711';
    const first = await client.api.POST('/pets', {
      params: { header: { 'Idempotency-Key': key } },
      body: { name: 'Own key', categoryId: 3 },
    });
    const again = await client.api.POST('/pets', {
      params: { header: { 'Idempotency-Key': key } },
      body: { name: 'Own key', categoryId: 3 },
    });
    expect(sent.map((request) => request.key)).toEqual([key, key]);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(await petsNamed('Own key')).toHaveLength(1);
  });
});
