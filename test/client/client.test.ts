import { describe, expect, it } from 'vitest';
import { createPetStoreClient, nextCursor, type PetStoreClientOptions } from '../../client';
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelayMs } from '../../client/retry';
import { loadFunctionHandlers } from '../../local/server';
import { ServiceUnavailableError } from '../../shared/errors';
import { httpOperation } from '../../shared/http/stack';
import { RateLimiter } from '../../shared/limits/rate-limiter';
import { OPERATIONS } from '../../functions/table';
import { FREE_KEY, startTestApi, testApiOnClock, TEST_KEY } from '../support/api';
import { checkResponse } from '../support/contract';

const clock = testApiOnClock(Date.UTC(2026, 10, 23, 9, 0, 0));

/** The client's requests go to the local server, and each answer is checked against the document too. */
function clientOptions(overrides: Partial<PetStoreClientOptions> = {}): PetStoreClientOptions {
  return {
    baseUrl: clock.api().baseUrl,
    apiKey: TEST_KEY,
    fetch: async (request) => {
      const response = await fetch(request);
      const copy = response.clone();
      checkResponse({
        method: request.method,
        url: request.url,
        status: copy.status,
        headers: copy.headers,
        text: await copy.text(),
      });
      return response;
    },
    ...overrides,
  };
}

describe('the typed client, against the local server', () => {
  it('adds and fetches animals with the generated types, and lists the available ones page by page', async () => {
    const client = createPetStoreClient(clientOptions());
    const statuses = [
      'available',
      'sold',
      'available',
      'pending',
      'available',
      'available',
      'sold',
      'available',
    ] as const;
    const created = [];
    for (const [i, status] of statuses.entries()) {
      const { data, response } = await client.api.POST('/pets', { body: { name: `Pet ${i}`, categoryId: 7, status } });
      expect(response.status).toBe(201);
      created.push(data!);
      // A millisecond apart: ids follow creation time (within one millisecond they may come in either order).
      clock.setTime(clock.time() + 1);
    }
    const { data: fetched } = await client.api.GET('/pets/{petId}', { params: { path: { petId: created[0]!.id } } });
    expect(fetched).toEqual(created[0]);

    const pages = [];
    for await (const page of client.pages({ status: 'available', limit: 2 })) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(created.filter((pet) => pet.status === 'available'));
  });

  it('waits out Retry-After (plus jitter) on 429, then succeeds', async () => {
    clock.setTime(Date.UTC(2026, 10, 23, 9, 5, 30));
    const api = clock.api();
    for (let i = 0; i < 60; i += 1)
      expect((await api.request('GET', '/pets?limit=1', { key: FREE_KEY })).status).toBe(200);

    const waits: number[] = [];
    const client = createPetStoreClient(
      clientOptions({
        apiKey: FREE_KEY,
        random: () => 0.5,
        now: clock.time,
        sleep: async (ms) => {
          waits.push(ms);
          clock.setTime(clock.time() + ms);
        },
      }),
    );
    const { data, response } = await client.api.GET('/pets', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(data).toHaveLength(1);
    // Refused at 9:05:30 with Retry-After: 30; waited 30 s plus half of the first jitter range.
    expect(waits).toEqual([30_000 + DEFAULT_RETRY_POLICY.baseDelayMs / 2]);
  });

  it('backs off exponentially with jitter on 503 and answers the last 503 when retries run out', async () => {
    const handlers = await loadFunctionHandlers();
    const outage = new RateLimiter(
      { admit: async () => Promise.reject(new ServiceUnavailableError(new Error('counters unreachable'))) },
      clock.time,
    );
    const unavailable = httpOperation({
      operationId: 'listPets',
      ...OPERATIONS.listPets.request,
      rateLimiter: outage,
      handle: async () => ({ status: 200, body: [] }),
    });
    const brokenApi = await startTestApi({ ...handlers, listPets: unavailable });
    try {
      const waits: number[] = [];
      const client = createPetStoreClient(
        clientOptions({ baseUrl: brokenApi.baseUrl, random: () => 1, sleep: async (ms) => void waits.push(ms) }),
      );
      const { error, response } = await client.api.GET('/pets');
      expect(response.status).toBe(503);
      expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
      // Retry-After: 1, plus a jitter range that doubles: 250, 500, 1,000, 2,000 ms.
      expect(waits).toEqual([1_250, 1_500, 2_000, 3_000]);
    } finally {
      await brokenApi.close();
    }
  });
});

describe('the retry policy', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 10, 23, 9, 0, 0);
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });

  it('draws jitter from a range that doubles up to its cap, and hands back waits longer than maxWaitMs', () => {
    const policy = { maxRetries: 10, baseDelayMs: 100, maxJitterMs: 1_000, maxWaitMs: 60_000 };
    expect([0, 1, 2, 3, 4, 5].map((retry) => retryDelayMs(policy, retry, undefined, () => 1))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(retryDelayMs(policy, 0, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(policy, 0, 3_600_000, () => 0)).toBeUndefined(); // a used-up day: tell the caller
    expect(retryDelayMs(policy, 10, 1_000, () => 0)).toBeUndefined();
  });

  it('finds the next cursor in a Link header', () => {
    expect(nextCursor('<https://api.example.com/v1/pets?limit=2&cursor=abc%3D>; rel="next"')).toBe('abc=');
    expect(nextCursor('</v1/pets>; rel="successor-version"')).toBeUndefined();
    expect(nextCursor(null)).toBeUndefined();
  });
});
