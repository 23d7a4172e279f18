import { describe, expect, it } from 'vitest';
import { loadFunctionHandlers } from '../../local/server';
import { NotFoundError, ServiceUnavailableError } from '../../shared/errors';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { DynamoDbRateCounterStore } from '../../shared/limits/counter-store';
import { RateLimiter } from '../../shared/limits/rate-limiter';
import { deprecationHeaders, GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { httpOperation } from '../../shared/http/stack';
import { OPERATIONS } from '../../functions/table';
import { NoQuery } from '../../shared/pets/schema';
import { expectErrorShape, FREE_KEY, startTestApi, testApiOnClock, type ApiResponse } from '../support/api';
import { testDatabase } from '../support/database';
import { KeyRegistry } from '../../shared/auth/key-registry';

/** 2026-11-22 10:00:20 UTC: 40 s before the minute ends. */
const T0 = Date.UTC(2026, 10, 22, 10, 0, 20);
const MINUTE_END = Date.UTC(2026, 10, 22, 10, 1, 0) / 1000;
const clock = testApiOnClock(T0);
const db = testDatabase();

function expectRateLimitHeaders(
  response: ApiResponse,
  expected: { limit: number; remaining: number; reset: number },
): void {
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(expected.limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(expected.remaining));
  expect(response.headers.get('x-ratelimit-reset')).toBe(String(expected.reset));
  expect(response.headers.get('ratelimit-policy')).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
  expect(response.headers.get('ratelimit')).toMatch(/^"(minute|day)";r=\d+;t=\d+$/);
}

describe('a Free key over HTTP', () => {
  it('counts down on every answer, errors included, and the 61st request in a minute is a 429 that does nothing', async () => {
    clock.setTime(T0);
    const before = await db.storedPets();
    const answers: ApiResponse[] = [];
    answers.push(
      await clock.api().request('POST', '/pets', { key: FREE_KEY, body: { name: 'Counted', categoryId: 1 } }),
    ); // 201
    answers.push(await clock.api().request('GET', '/pets', { key: FREE_KEY })); // 200
    answers.push(await clock.api().request('GET', `/pets/${answers[0]?.body.id}`, { key: FREE_KEY })); // 200
    answers.push(await clock.api().request('GET', '/pets/424242', { key: FREE_KEY })); // 404
    answers.push(await clock.api().request('GET', '/pets?limit=0', { key: FREE_KEY })); // 400
    expect(answers.map((a) => a.status)).toEqual([201, 200, 200, 404, 400]);
    answers.forEach((answer, i) => {
      expectRateLimitHeaders(answer, { limit: 60, remaining: 59 - i, reset: MINUTE_END });
    });
    expect(answers[4]?.headers.get('ratelimit')).toBe('"minute";r=55;t=40');
    expect(answers[4]?.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');

    for (let i = 5; i < 60; i += 1)
      expect((await clock.api().request('GET', '/pets?limit=1', { key: FREE_KEY })).status).toBe(200);

    clock.setTime(T0 + 10_000);
    const refused = await clock
      .api()
      .request('POST', '/pets', { key: FREE_KEY, body: { name: 'Refused', categoryId: 1 } });
    expectErrorShape(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('30');
    expectRateLimitHeaders(refused, { limit: 60, remaining: 0, reset: MINUTE_END });
    expect((await db.storedPets()).length).toBe(before.length + 1); // only 'Counted'

    clock.setTime(MINUTE_END * 1000);
    const nextMinute = await clock.api().request('GET', '/pets', { key: FREE_KEY });
    expect(nextMinute.status).toBe(200);
    expectRateLimitHeaders(nextMinute, { limit: 60, remaining: 59, reset: MINUTE_END + 60 });
  });

  it('is suspended after hammering on (a Free key: its 175th counted refusal, more than 2.9 × 60): 429 key_suspended with Retry-After until the suspension ends', async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 11, 0, 0));
    const key = 'hammering-key-of-a-free-customer';
    await new KeyRegistry(db.documentClient, db.tableName).register(key, 'free');
    await inBatches(60, () => clock.api().request('GET', '/pets?limit=1', { key }));
    const answers: ApiResponse[] = [await clock.api().request('GET', '/pets', { key })]; // the first refusal
    clock.setTime(clock.time() + 1_000); // its Retry-After ignored: from now on refusals count
    // 174 counted (20 at a time: each counted exactly, so none of them suspends), then the 175th.
    answers.push(
      ...(await inBatches(174, () => clock.api().request('GET', '/pets', { key }))),
      await clock.api().request('GET', '/pets', { key }),
    );
    expect(answers.slice(0, 175).map((a) => a.body.code)).toEqual(Array(175).fill('rate_limited'));
    expectErrorShape(answers[175] as ApiResponse, 429, 'key_suspended');
    expect(answers[175]?.headers.get('retry-after')).toBe('900');

    clock.setTime(clock.time() + 10 * 60_000);
    const later = await clock.api().request('GET', '/pets', { key });
    expectErrorShape(later, 429, 'key_suspended');
    expect(later.headers.get('retry-after')).toBe('300');
    expect(later.headers.get('x-ratelimit-remaining')).toBe('0');

    clock.setTime(clock.time() + 5 * 60_000);
    expect((await clock.api().request('GET', '/pets', { key })).status).toBe(200);
  });
});

describe('a burst is not a ban (issue 23, finding 1)', () => {
  it('a new Free key sending 100 requests at once gets 60 answers and 40 rate_limited, never key_suspended, and is not suspended after', async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 13, 0, 2));
    const key = 'burst-key-of-a-new-free-customer';
    await new KeyRegistry(db.documentClient, db.tableName).register(key, 'free');
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => clock.api().request('GET', '/pets?limit=1', { key })),
    );
    const tally = (code: string | undefined) =>
      answers.filter((answer) => (answer.status === 200 ? undefined : answer.body.code) === code).length;
    expect([tally(undefined), tally('rate_limited'), tally('key_suspended')]).toEqual([60, 40, 0]);
    // A client that waits as Retry-After says is served in the next minute.
    clock.setTime(Date.UTC(2026, 10, 22, 13, 1, 0));
    expect((await clock.api().request('GET', '/pets?limit=1', { key })).status).toBe(200);
  });
});

describe('a client that obeys Retry-After is never suspended (issue 36, finding 1)', () => {
  it("a Free key's burst at second 45, then, after the 15 s it was told to wait, a burst of 95 in the new minute: rate_limited, never key_suspended", async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 14, 0, 45));
    const key = 'obeying-key-of-a-free-customer';
    await new KeyRegistry(db.documentClient, db.tableName).register(key, 'free');
    const tally = (answers: ApiResponse[]) =>
      ['answered', 'rate_limited', 'key_suspended'].map(
        (code) => answers.filter((answer) => (answer.status === 200 ? 'answered' : answer.body.code) === code).length,
      );
    const first = await Promise.all(
      Array.from({ length: 70 }, () => clock.api().request('GET', '/pets?limit=1', { key })),
    );
    expect(tally(first)).toEqual([60, 10, 0]);
    expect(
      new Set(first.filter((answer) => answer.status === 429).map((answer) => answer.headers.get('retry-after'))),
    ).toEqual(new Set(['15']));

    clock.setTime(Date.UTC(2026, 10, 22, 14, 1, 0));
    const second = await Promise.all(
      Array.from({ length: 95 }, () => clock.api().request('GET', '/pets?limit=1', { key })),
    );
    expect(tally(second)).toEqual([60, 35, 0]);
    // Had it ignored this minute's Retry-After, it would be suspended by the 175th refusal (more than 2.9 × 60) a second later.
    clock.setTime(Date.UTC(2026, 10, 22, 14, 1, 1));
    const ignoring = await inBatches(174, () => clock.api().request('GET', '/pets?limit=1', { key }));
    ignoring.push(await clock.api().request('GET', '/pets?limit=1', { key }));
    expect(ignoring.slice(0, 174).map((answer) => answer.body.code)).toEqual(Array(174).fill('rate_limited'));
    expectErrorShape(ignoring[174] as ApiResponse, 429, 'key_suspended');
  });
});

describe('requests without a valid key', () => {
  it('with a bad token are counted per client address by the authorizer under the Free limits: 401 until the 61st, then 429 until the minute ends', async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 12, 0, 0));
    const minuteEnd = Date.UTC(2026, 10, 22, 12, 1, 0) / 1000;
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 60; i += 1) answers.push(await clock.api().request('GET', '/pets', { key: `guess-${i}` }));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    clock.setTime(Date.UTC(2026, 10, 22, 12, 0, 15));
    const refused = await clock.api().request('GET', '/pets', { key: 'guess-61' });
    expectErrorShape(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('45');
    expectRateLimitHeaders(refused, { limit: 60, remaining: 0, reset: minuteEnd });
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // Malformed credentials count the same.
    expectErrorShape(
      await clock.api().request('GET', '/pets', { key: null, headers: { authorization: 'Basic Z3Vlc3M6Z3Vlc3M=' } }),
      429,
      'rate_limited',
    );
    // A real key is counted on its own, not with the address.
    expect((await clock.api().request('GET', '/pets', { key: 'local-business-key' })).status).toBe(200);
    // Refused 10 s before the minute ends, a request is told to wait 30 s: the gateway caches the
    // authorizer's Deny that long (as in AWS), so the same request stays refused past the minute,
    // while the address, with another token, starts afresh when the minute ends.
    clock.setTime(Date.UTC(2026, 10, 22, 12, 0, 50));
    const late = await clock.api().request('GET', '/pets', { key: 'guess-late' });
    expectErrorShape(late, 429, 'rate_limited');
    expect(late.headers.get('retry-after')).toBe('30');
    clock.setTime(minuteEnd * 1000);
    expectErrorShape(await clock.api().request('GET', '/pets', { key: 'guess-62' }), 401, 'unauthorized');
    expectErrorShape(await clock.api().request('GET', '/pets', { key: 'guess-late' }), 429, 'rate_limited');
    clock.setTime(Date.UTC(2026, 10, 22, 12, 1, 20));
    expectErrorShape(await clock.api().request('GET', '/pets', { key: 'guess-late' }), 401, 'unauthorized');
  });

  it('without an Authorization header never reach the authorizer and are counted by the web ACL: 401 until the 61st, then its 429', async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 12, 5, 0));
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 60; i += 1) answers.push(await clock.api().request('GET', '/pets', { key: null }));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    const refused = await clock.api().request('GET', '/pets', { key: null, responder: 'gateway' });
    expectErrorShape(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('60');
    // A bad token from the same address is the authorizer's to count, and the address has its whole allowance there.
    expectErrorShape(await clock.api().request('GET', '/pets', { key: 'guess-again' }), 401, 'unauthorized');
    expect((await clock.api().request('GET', '/pets', { key: 'local-business-key' })).status).toBe(200);
  });
});

describe('every status carries the headers', () => {
  it('500 and 503 too, and an unreachable counter store fails closed with 503', async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 13, 0, 0));
    const handlers = await loadFunctionHandlers();
    const broken = httpOperation({
      operationId: 'listPets',
      query: NoQuery,
      handle: async () => {
        throw new Error('bug');
      },
    });
    const outage = new RateLimiter(
      {
        admit: async () => {
          throw new ServiceUnavailableError(new Error('counter store unreachable'));
        },
      },
      clock.time,
    );
    const noCounters = httpOperation({
      operationId: 'getPet',
      ...OPERATIONS.getPet.request,
      responseHeaders: deprecationHeaders(GET_PET_DEPRECATION),
      rateLimiter: outage,
      handle: async () => ({ status: 200, body: {} }),
    });

    const brokenApi = await startTestApi({ ...handlers, listPets: broken, getPet: noCounters });
    try {
      const internal = await brokenApi.request('GET', '/pets', { key: 'local-business-key' });
      expectErrorShape(internal, 500, 'internal_error');
      expectRateLimitHeaders(internal, { limit: 1000, remaining: 999, reset: Date.UTC(2026, 10, 22, 13, 1, 0) / 1000 });

      const unavailable = await brokenApi.request('GET', '/pets/1', { key: 'local-business-key' });
      expectErrorShape(unavailable, 503, 'service_unavailable');
      expect(unavailable.headers.get('retry-after')).toBe('1');
      expectRateLimitHeaders(unavailable, {
        limit: 1000,
        remaining: 0,
        reset: Date.UTC(2026, 10, 22, 13, 1, 0) / 1000,
      });
    } finally {
      await brokenApi.close();
    }
  });
});

describe('a key counted on shards (issue 41)', () => {
  it("tells its plan's limit and Reset, and an estimated Remaining: the remaining of the shard that counted it times the shards", async () => {
    clock.setTime(Date.UTC(2026, 10, 22, 14, 0, 20));
    const handlers = await loadFunctionHandlers();
    // A threshold of 1,000 a minute: the demo Enterprise key (5,000 a minute) is counted on 5 shards of 1,000.
    const sharded = new RateLimiter(
      new DynamoDbRateCounterStore(
        createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint }),
        db.tableName,
        { shardThresholdPerMinute: 1_000 },
      ),
      clock.time,
    );
    const getPet = httpOperation({
      operationId: 'getPet',
      ...OPERATIONS.getPet.request,
      responseHeaders: deprecationHeaders(GET_PET_DEPRECATION),
      rateLimiter: sharded,
      handle: async () => {
        throw new NotFoundError('No pet with that id.');
      },
    });
    const api = await startTestApi({ ...handlers, getPet });
    try {
      const reset = Date.UTC(2026, 10, 22, 14, 1, 0) / 1000;
      const first = await api.request('GET', '/pets/1', { key: 'local-enterprise-key' });
      expectErrorShape(first, 404, 'not_found');
      // Its shard has 999 of 1,000 left: 5 × 999.
      expectRateLimitHeaders(first, { limit: 5_000, remaining: 4_995, reset });
      expect(first.headers.get('ratelimit')).toBe('"minute";r=4995;t=40');
      expect(first.headers.get('ratelimit-policy')).toBe('"minute";q=5000;w=60, "day";q=1000000;w=86400');
      // The next one lands on the same shard (998 left) or on another (999).
      const second = await api.request('GET', '/pets/1', { key: 'local-enterprise-key' });
      expect(['4990', '4995']).toContain(second.headers.get('x-ratelimit-remaining'));
    } finally {
      await api.close();
    }
  });
});

/** `count` requests made by `send`, 20 at a time. */
async function inBatches(count: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (let sent = 0; sent < count; sent += 20)
    answers.push(...(await Promise.all(Array.from({ length: Math.min(20, count - sent) }, send))));
  return answers;
}
