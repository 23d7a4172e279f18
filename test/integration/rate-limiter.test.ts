import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { KeySuspendedError, RateLimitedError, ServiceUnavailableError } from '../../shared/errors';
import { DynamoDbRateCounterStore } from '../../shared/limits/counter-store';
import { STANDARD_PLAN_LIMITS, type RateLimits } from '../../shared/limits/plans';
import { RateLimiter, type RateLimitDecision } from '../../shared/limits/rate-limiter';
import { testDatabase } from '../support/database';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * The limiter against real counters in DynamoDB Local, with a clock the tests move, so minute
 * and day boundaries are crossed without sleeping.
 */
const db = testDatabase();
const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * The suspension rule's count (decisions.md; docs/rate-limits-and-keys.md): a key is suspended by
 * the refusal that makes its counted refusals of one window more than 2.9 times its per-minute
 * limit, rounded down (counting those that arrived at least 1 s after the window's first refusal).
 */
const suspendingRefusal = (limits: RateLimits) => Math.floor((29 * limits.perMinute) / 10) + 1;
/** 2026-11-22 10:00:00 UTC, the start of a minute. */
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

/** A counter store on the test table, through `endpoint` (DynamoDB Local itself unless a proxy is named). */
const storeAt = (endpoint: string = db.endpoint) =>
  new DynamoDbRateCounterStore(createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: endpoint }), db.tableName);

let subjectCounter = 0;
function setup(startAt = T0) {
  let nowMs = startAt;
  const limiter = new RateLimiter(storeAt(), () => nowMs);
  subjectCounter += 1;
  const subject = `key#test-${subjectCounter}`;
  return {
    limiter,
    subject,
    check: (limits: RateLimits) => limiter.check(subject, limits),
    setTime: (ms: number) => {
      nowMs = ms;
    },
  };
}

async function many(check: () => Promise<RateLimitDecision>, count: number): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(await check());
  return decisions;
}

describe('rate limits per plan', () => {
  it.each(['free', 'pro', 'business'] as const)(
    "%s: the limit is the plan's, and remaining counts down",
    async (plan) => {
      const limits = STANDARD_PLAN_LIMITS[plan];
      const { check } = setup();
      const decisions = await many(() => check(limits), 3);
      expect(decisions.map((d) => d.status.remaining)).toEqual([
        limits.perMinute - 1,
        limits.perMinute - 2,
        limits.perMinute - 3,
      ]);
      for (const decision of decisions) {
        expect(decision.refusal).toBeUndefined();
        expect(decision.status).toMatchObject({ window: 'minute', limit: limits.perMinute, resetAt: T0 + MINUTE });
      }
    },
  );

  it("enterprise: a key's own limits apply", async () => {
    const { check } = setup();
    const decision = await check({ perMinute: 5_000, perDay: 1_000_000 });
    expect(decision.status).toMatchObject({ limit: 5_000, remaining: 4_999 });
  });

  it('the 61st Free request within a minute is refused until the minute ends; a new minute restores it', async () => {
    const { check, setTime } = setup();
    setTime(T0 + 15_500);
    const decisions = await many(() => check(STANDARD_PLAN_LIMITS.free), 61);
    expect(decisions.slice(0, 60).every((d) => d.refusal === undefined)).toBe(true);
    const refused = decisions[60] as RateLimitDecision;
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect(refused.refusal?.retryAfterSeconds).toBe(45); // 44.5 s left in the minute, rounded up
    expect(refused.status).toMatchObject({ window: 'minute', remaining: 0, limit: 60, resetAt: T0 + MINUTE });

    setTime(T0 + MINUTE);
    const next = await check(STANDARD_PLAN_LIMITS.free);
    expect(next.refusal).toBeUndefined();
    expect(next.status.remaining).toBe(59);
  });

  it('the daily window binds on its own (1,000 for Free), until midnight UTC', async () => {
    const { check, setTime } = setup();
    const free = STANDARD_PLAN_LIMITS.free;
    let admitted = 0;
    for (let minute = 0; admitted < 1_000; minute += 1) {
      setTime(T0 + minute * MINUTE);
      for (let i = 0; i < 60 && admitted < 1_000; i += 1) {
        const decision = await check(free);
        expect(decision.refusal).toBeUndefined();
        admitted += 1;
      }
    }
    // 1,000 used in 17 minutes: the next request, in a fresh minute, is refused by the day.
    setTime(T0 + 20 * MINUTE);
    const refused = await check(free);
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect(refused.status).toMatchObject({
      window: 'day',
      limit: 1_000,
      remaining: 0,
      resetAt: Date.UTC(2026, 10, 23),
    });
    expect(refused.refusal?.retryAfterSeconds).toBe((Date.UTC(2026, 10, 23) - (T0 + 20 * MINUTE)) / 1000);

    setTime(Date.UTC(2026, 10, 23, 0, 0, 1));
    const tomorrow = await check(free);
    expect(tomorrow.refusal).toBeUndefined();
    expect(tomorrow.status).toMatchObject({ window: 'minute', remaining: 59 });
  }, 60_000);

  it('requests refused by the minute window do not use up the day', async () => {
    const { check, setTime } = setup();
    const limits = { perMinute: 5, perDay: 8 };
    await many(() => check(limits), 9); // 5 admitted, 4 refused by the minute
    setTime(T0 + MINUTE);
    const nextMinute = await many(() => check(limits), 4);
    expect(nextMinute.map((d) => d.refusal === undefined)).toEqual([true, true, true, false]);
    expect(nextMinute[3]?.status.window).toBe('day');
  });

  it('tells the window closest to running out: the one with fewer requests left', async () => {
    const roomyDay = setup();
    expect((await roomyDay.check({ perMinute: 10, perDay: 12 })).status).toMatchObject({
      window: 'minute',
      remaining: 9,
      limit: 10,
      resetAt: T0 + MINUTE,
    });
    const tightDay = setup();
    expect((await tightDay.check({ perMinute: 10, perDay: 3 })).status).toMatchObject({
      window: 'day',
      remaining: 2,
      limit: 3,
      resetAt: Date.UTC(2026, 10, 23),
    });
  });
});

describe('counter items', () => {
  it('carry a TTL a day past the end of their day window, so idle subjects disappear', async () => {
    const { check, subject } = setup();
    await check(STANDARD_PLAN_LIMITS.free);
    const { Item } = await db.documentClient.send(
      new GetCommand({ TableName: db.tableName, Key: { pk: `RATE#${subject}`, sk: 'counters' } }),
    );
    expect(Item).toMatchObject({ minuteCount: 1, dayCount: 1, expiresAt: (Date.UTC(2026, 10, 23) + DAY) / 1000 });
  });
});

describe('temporary suspension', () => {
  it('suspends for 15 minutes a key whose refusals after its first one pass 2.9 times its limit within a minute: with a limit of 2, the 6th', async () => {
    const { check, setTime, subject } = setup();
    const limits = { perMinute: 2, perDay: 1_000 };
    expect(suspendingRefusal(limits)).toBe(6);
    await many(() => check(limits), 2);
    setTime(T0 + 1_000);
    const first = await check(limits);
    expect(first.refusal).toBeInstanceOf(RateLimitedError);
    setTime(T0 + 2_000);
    const hammering = await many(() => check(limits), 6);
    expect(hammering.slice(0, 5).every((d) => d.refusal instanceof RateLimitedError)).toBe(true);
    const tripped = hammering[5] as RateLimitDecision;
    expect(tripped.refusal).toBeInstanceOf(KeySuspendedError);
    expect(tripped.refusal?.code).toBe('key_suspended');
    expect(tripped.refusal?.retryAfterSeconds).toBe(15 * 60);
    // The suspension keeps the item a day past its end: TTL in seconds, as DynamoDB reads it.
    const { Item } = await db.documentClient.send(
      new GetCommand({ TableName: db.tableName, Key: { pk: `RATE#${subject}`, sk: 'counters' } }),
    );
    expect(Item?.expiresAt).toBe(Math.ceil((T0 + 2_000 + 15 * MINUTE + DAY) / 1000));

    // Suspended even in a new minute, with Retry-After counting down to the end.
    setTime(T0 + 2_000 + 5 * MINUTE);
    const during = await check(limits);
    expect(during.refusal).toBeInstanceOf(KeySuspendedError);
    expect(during.refusal?.retryAfterSeconds).toBe(10 * 60);
    expect(during.status).toMatchObject({ remaining: 0, resetAt: T0 + 2_000 + 15 * MINUTE });

    setTime(T0 + 2_000 + 15 * MINUTE);
    const after = await check(limits);
    expect(after.refusal).toBeUndefined();
  });

  it('does not suspend a key whose refusals are spread beyond a minute, nor one that waits as told', async () => {
    const { check, setTime } = setup();
    const limits = { perMinute: 1, perDay: 1_000 };
    // Each minute: one admitted, then 20 refused; the streak restarts once its minute is over.
    for (let minute = 0; minute < 3; minute += 1) {
      setTime(T0 + minute * MINUTE);
      expect((await check(limits)).refusal).toBeUndefined();
      const refused = await many(() => check(limits), 20);
      expect(refused.every((d) => d.refusal instanceof RateLimitedError)).toBe(true);
    }
  });

  it('the suspension counts per subject: other keys are not affected', async () => {
    const hammerer = setup();
    const limits = { perMinute: 1, perDay: 1_000 };
    await many(() => hammerer.check(limits), 2); // admitted, then the first refusal
    hammerer.setTime(T0 + 1_000); // its Retry-After ignored
    await many(() => hammerer.check(limits), 40);
    expect((await hammerer.check(limits)).refusal).toBeInstanceOf(KeySuspendedError);
    const other = setup();
    expect((await other.check(limits)).refusal).toBeUndefined();
  });
});

describe('a burst is not a ban (issue 23, finding 1)', () => {
  it("never suspends for refusals that arrived within 1 s of the first refused one's arrival, however many and however late they are served", async () => {
    const { limiter, subject, setTime } = setup();
    const limits = { perMinute: 1, perDay: 1_000 };
    expect((await limiter.check(subject, limits, undefined, T0)).refusal).toBeUndefined();
    // The first refusal arrived at T0 + 100; 200 more of the same burst arrived before T0 + 1,100,
    // and are served up to 4 s later.
    setTime(T0 + 100);
    expect((await limiter.check(subject, limits, undefined, T0 + 100)).refusal?.code).toBe('rate_limited');
    for (let i = 0; i < 200; i += 1) {
      setTime(T0 + 100 + i * 20);
      expect((await limiter.check(subject, limits, undefined, T0 + 100 + (i % 100) * 9)).refusal?.code).toBe(
        'rate_limited',
      );
    }
    // Sent after the Retry-After was ignored for a second: these count, and the 3rd (more than 2.9 × 1) suspends.
    setTime(T0 + 5_000);
    const ignored = [];
    for (let i = 0; i < suspendingRefusal(limits); i += 1)
      ignored.push((await limiter.check(subject, limits, undefined, T0 + 1_100 + i)).refusal?.code);
    expect(ignored).toEqual(['rate_limited', 'rate_limited', 'key_suspended']);
  });
});

describe('an arrival time that is no real arrival', () => {
  it('is taken as at most 30 s old: a request invoked with requestTimeEpoch 0 opens a streak that later refusals still join', async () => {
    const { limiter, subject, setTime } = setup();
    const limits = { perMinute: 1, perDay: 1_000 };
    expect((await limiter.check(subject, limits, undefined, 0)).refusal).toBeUndefined();
    expect((await limiter.check(subject, limits, undefined, 0)).refusal?.code).toBe('rate_limited');
    setTime(T0 + 1_000);
    const codes = [];
    for (let i = 0; i < 30; i += 1)
      codes.push((await limiter.check(subject, limits, undefined, T0 + 1_000)).refusal?.code);
    expect(codes.at(-1)).toBe('key_suspended');
  });
});

describe('one suspension, one end (issue 23, finding 2)', () => {
  it('gives every request that finds the subject suspended the stored end, those that raced to suspend it too', async () => {
    const store = storeAt();
    subjectCounter += 1;
    const subject = `key#race-${subjectCounter}`;
    const limits = { perMinute: 1, perDay: 1_000 };
    expect((await store.admit(subject, limits, T0)).outcome).toBe('admitted');
    expect((await store.admit(subject, limits, T0 + 1_000)).outcome).toBe('refused'); // opens the streak
    // 40 refusals at once, each at its own instant (as requests served over a few seconds are).
    const admissions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.admit(subject, limits, T0 + 2_000 + i * 50)),
    );
    const ends = new Set(
      admissions.flatMap((admission) => (admission.outcome === 'suspended' ? [admission.until] : [])),
    );
    expect(admissions.filter((admission) => admission.outcome === 'suspended').length).toBeGreaterThan(1);
    const { Item } = await db.documentClient.send(
      new GetCommand({ TableName: db.tableName, Key: { pk: `RATE#${subject}`, sk: 'counters' } }),
    );
    expect([...ends]).toEqual([Item?.suspendedUntil]);
  });
});

describe('exact under concurrency', () => {
  it('with limit 37, 100 simultaneous requests from two instances get exactly 37 admissions', async () => {
    const a = setup(T0 + 10_000);
    const b = new RateLimiter(storeAt(), () => T0 + 10_000);
    const limits = { perMinute: 37, perDay: 10_000 };
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a.check(limits) : b.check(a.subject, limits))),
    );
    const admitted = decisions.filter((d) => d.refusal === undefined);
    expect(admitted).toHaveLength(37);
    // All the others are 429s: rate_limited (they arrive together: none counts toward a suspension).
    expect(decisions.filter((d) => d.refusal?.status === 429)).toHaveLength(63);
    expect(decisions.filter((d) => d.refusal instanceof RateLimitedError)).toHaveLength(63);
    expect(admitted.map((d) => d.status.remaining).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 37 }, (_, i) => i),
    );
  });

  it('stays exact when the simultaneous requests open a new minute together', async () => {
    const a = setup(T0);
    await a.check({ perMinute: 37, perDay: 10_000 });
    a.setTime(T0 + MINUTE);
    const decisions = await Promise.all(Array.from({ length: 100 }, () => a.check({ perMinute: 37, perDay: 10_000 })));
    expect(decisions.filter((d) => d.refusal === undefined)).toHaveLength(37);
  });
});

describe('windows and instances (issue 27)', () => {
  const otherInstance = (clock: () => number) => new RateLimiter(storeAt(), clock);

  it('on a tie between the minute and the day, tells the day (the window that resets later)', async () => {
    const { check } = setup();
    expect((await check({ perMinute: 5, perDay: 5 })).status).toMatchObject({
      window: 'day',
      remaining: 4,
      limit: 5,
      resetAt: Date.UTC(2026, 10, 23),
    });
  });

  it("opens a new day at midnight UTC: the new day's requests are counted against its own limit", async () => {
    const { check, setTime } = setup(Date.UTC(2026, 10, 22, 23, 59, 30));
    const limits = { perMinute: 100, perDay: 3 };
    expect((await many(() => check(limits), 4)).map((d) => d.refusal === undefined)).toEqual([true, true, true, false]);
    setTime(Date.UTC(2026, 10, 23, 0, 0, 30));
    const newDay = await many(() => check(limits), 4);
    expect(newDay.map((d) => d.refusal === undefined)).toEqual([true, true, true, false]);
    expect(newDay.map((d) => d.status.remaining)).toEqual([2, 1, 0, 0]);
    expect(newDay[3]?.status).toMatchObject({ window: 'day', resetAt: Date.UTC(2026, 10, 24) });
  });

  it('a suspension is kept in the table: another instance, which never saw it, refuses the key in a new minute', async () => {
    const { check, setTime, subject } = setup();
    const limits = { perMinute: 2, perDay: 1_000 };
    await many(() => check(limits), 2);
    setTime(T0 + 1_000);
    await check(limits);
    setTime(T0 + 2_000);
    expect((await many(() => check(limits), 30)).at(-1)?.refusal).toBeInstanceOf(KeySuspendedError);
    const fresh = otherInstance(() => T0 + MINUTE + 5_000);
    const decision = await fresh.check(subject, limits);
    expect(decision.refusal).toBeInstanceOf(KeySuspendedError);
    expect(decision.refusal?.retryAfterSeconds).toBe((T0 + 2_000 + 15 * MINUTE - (T0 + MINUTE + 5_000)) / 1000);
  });

  it('an instance whose clock lags joins the minute another already opened, instead of resetting it', async () => {
    const ahead = setup(T0 + MINUTE + 500);
    const behind = otherInstance(() => T0 + MINUTE - 1_000);
    const limits = { perMinute: 10, perDay: 1_000 };
    expect((await ahead.check(limits)).status.remaining).toBe(9);
    expect((await behind.check(ahead.subject, limits)).status.remaining).toBe(8);
    expect((await ahead.check(limits)).status.remaining).toBe(7);
  });

  it("counts a suspension's refusals over the whole minute that refused: 30 refusals arriving 31 to 34 s after the first suspend the key (a limit of 10)", async () => {
    const { check, setTime } = setup();
    const limits = { perMinute: 10, perDay: 1_000 };
    await many(() => check(limits), 10);
    setTime(T0 + 1_000);
    expect((await check(limits)).refusal).toBeInstanceOf(RateLimitedError);
    const late: RateLimitDecision[] = [];
    for (let i = 0; i < 30; i += 1) {
      setTime(T0 + 32_000 + i * 100);
      late.push(await check(limits));
    }
    expect(late.slice(0, 29).every((d) => d.refusal instanceof RateLimitedError)).toBe(true);
    expect(late[29]?.refusal).toBeInstanceOf(KeySuspendedError);
  });
});

describe("the store under faults, and the streak's edges (issue 27)", () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(db.endpoint);
  });
  afterAll(async () => {
    await proxy.close();
  });
  // A test that failed while the proxy held requests or injected a fault leaves the next ones a clean proxy.
  afterEach(() => {
    proxy.clear();
    proxy.release({ stopHolding: true });
  });
  const proxiedStore = () => storeAt(proxy.endpoint);
  const freshSubject = () => {
    subjectCounter += 1;
    return `key#faults-${subjectCounter}`;
  };
  const updates = () => proxy.seen.get('UpdateItem') ?? 0;

  it('a counter that another writer changes before every write gives up after 10 rounds with an error, not an endless loop', async () => {
    proxy.inject('condition-failed', ['UpdateItem']);
    try {
      const before = updates();
      await expect(proxiedStore().admit(freshSubject(), { perMinute: 5, perDay: 100 }, T0)).rejects.toThrow(
        /no decision after 10 rounds of conflicting writes/,
      );
      // Each round: the count in the current windows, then opening them.
      expect(updates() - before).toBe(20);
    } finally {
      proxy.clear();
    }
  });

  it("a write to a DynamoDB that never answers fails the count when the request's deadline passes", async () => {
    proxy.inject('hang', ['UpdateItem']);
    try {
      const deadline = { signalForCall: () => AbortSignal.timeout(200) };
      const failure = await proxiedStore()
        .admit(freshSubject(), { perMinute: 5, perDay: 100 }, T0, { deadline })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServiceUnavailableError);
      expect((failure as ServiceUnavailableError).cause).toMatchObject({ name: 'AbortError' });
    } finally {
      proxy.clear();
    }
  });

  it('a key this instance knows to be suspended is refused without a DynamoDB request, with the suspension as its status', async () => {
    let nowMs = T0;
    const limiter = new RateLimiter(proxiedStore(), () => nowMs);
    const subject = freshSubject();
    const limits = { perMinute: 1, perDay: 1_000 };
    await limiter.check(subject, limits);
    nowMs = T0 + 1_000;
    await limiter.check(subject, limits);
    nowMs = T0 + 2_000;
    const decisions = await many(() => limiter.check(subject, limits), 30);
    expect(decisions.at(-1)?.refusal).toBeInstanceOf(KeySuspendedError);
    const before = updates();
    nowMs = T0 + 5 * MINUTE;
    const known = await limiter.check(subject, limits);
    expect(updates()).toBe(before);
    expect(known.refusal).toBeInstanceOf(KeySuspendedError);
    expect(known.status).toEqual({
      limits,
      window: 'minute',
      limit: 1,
      remaining: 0,
      resetAt: T0 + 2_000 + 15 * MINUTE,
      nowMs: T0 + 5 * MINUTE,
    });
  });

  it('two first refusals at once: one opens the streak, the other finds it open, and both are refused, not suspended', async () => {
    const subject = freshSubject();
    const limits = { perMinute: 1, perDay: 1_000 };
    expect((await proxiedStore().admit(subject, limits, T0)).outcome).toBe('admitted');
    proxy.hold(['UpdateItem']);
    try {
      const racing = [
        proxiedStore().admit(subject, limits, T0 + 1_000),
        proxiedStore().admit(subject, limits, T0 + 1_100),
      ];
      await proxy.held(2); // both counts (refused: the minute is used up)
      proxy.release();
      await proxy.held(2); // both open the streak: one write wins, the other's condition fails
      proxy.release({ stopHolding: true });
      expect((await Promise.all(racing)).map((admission) => admission.outcome)).toEqual(['refused', 'refused']);
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it("a refusal counted while another instance started the next window's streak is decided again, not a failure", async () => {
    const direct = storeAt();
    const subject = freshSubject();
    const limits = { perMinute: 1, perDay: 1_000 };
    expect((await direct.admit(subject, limits, T0)).outcome).toBe('admitted');
    expect((await direct.admit(subject, limits, T0 + 1_000)).outcome).toBe('refused'); // the minute's streak starts at T0 + 1 s
    proxy.hold(['UpdateItem']);
    try {
      const racing = proxiedStore().admit(subject, limits, T0 + 30_000);
      await proxy.held(1); // its count in the current windows (refused: the minute is used up)
      proxy.release();
      expect(await proxy.held(1)).toEqual(['UpdateItem RATE']); // its refusal, counted in the streak it saw
      // Meanwhile an instance whose clock is in the next minute is admitted there, then refused: that minute's streak starts.
      expect((await direct.admit(subject, limits, T0 + MINUTE)).outcome).toBe('admitted');
      expect((await direct.admit(subject, limits, T0 + MINUTE + 500)).outcome).toBe('refused');
      proxy.release({ stopHolding: true });
      // The count's condition (the window it saw) fails: decided again, in the next minute's streak, where it is too early to count.
      expect((await racing).outcome).toBe('refused');
    } finally {
      proxy.release({ stopHolding: true });
    }
    const { Item } = await db.documentClient.send(
      new GetCommand({ TableName: db.tableName, Key: { pk: `RATE#${subject}`, sk: 'counters' } }),
    );
    expect(Item).toMatchObject({ refusalWindowEnd: T0 + 2 * MINUTE, refusalStart: T0 + MINUTE + 500, refusals: 0 });
  });

  it.each([
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('an arrival time of %s is taken as now: the refusal that opens the streak starts it now', async (_, arrivedAt) => {
    const { limiter, subject, setTime } = setup();
    const limits = { perMinute: 1, perDay: 1_000 };
    await limiter.check(subject, limits, undefined, arrivedAt);
    setTime(T0 + 1_000);
    expect((await limiter.check(subject, limits, undefined, arrivedAt)).refusal).toBeInstanceOf(RateLimitedError);
    // Counted only from 1 s after the streak's start, so this tells where it started.
    setTime(T0 + 1_999);
    expect(
      (await many(() => limiter.check(subject, limits, undefined, T0 + 1_999), 31)).some(
        (d) => d.refusal instanceof KeySuspendedError,
      ),
    ).toBe(false);
    setTime(T0 + 2_000);
    expect(
      (await many(() => limiter.check(subject, limits, undefined, T0 + 2_000), 30)).at(-1)?.refusal,
    ).toBeInstanceOf(KeySuspendedError);
  });

  it("a streak lasts as long as the window that refused: the minute's last instant counts, the next minute's first refusal opens a new streak", async () => {
    const refusalsAt = async (lastAt: number) => {
      const { check, setTime } = setup();
      const limits = { perMinute: 1, perDay: 1_000 };
      await check(limits);
      setTime(T0 + 1_000);
      await check(limits); // the first refusal: the minute's streak starts at T0 + 1 s
      setTime(T0 + 2_000);
      await many(() => check(limits), 1); // 1 of the 2 (2.9 × 1, rounded down) it may have
      setTime(lastAt);
      return (await many(() => check(limits), 2)).map((decision) => decision.refusal?.code);
    };
    expect(await refusalsAt(T0 + MINUTE - 1)).toEqual(['rate_limited', 'key_suspended']);
    // The next minute: one request admitted, the next refused, in a streak of its own.
    expect(await refusalsAt(T0 + MINUTE)).toEqual([undefined, 'rate_limited']);
  });

  it("once the day's quota is used up, the streak is the day's: refusals spread over its minutes and hours count", async () => {
    const { check, setTime } = setup();
    const limits = { perMinute: 10, perDay: 1 };
    await check(limits);
    setTime(T0 + 1_000);
    expect((await check(limits)).refusal?.code).toBe('rate_limited'); // the day's streak starts at T0 + 1 s
    const codes: (string | undefined)[] = [];
    for (let i = 1; i <= 30; i += 1) {
      setTime(T0 + i * 5 * MINUTE); // one an ignored Retry-After every five minutes, over two and a half hours
      codes.push((await check(limits)).refusal?.code);
    }
    expect(codes.slice(0, 29)).toEqual(Array(29).fill('rate_limited'));
    expect(codes[29]).toBe('key_suspended');

    // The suspension ends the streak: a client that waited as it said is refused, not suspended
    // again for what it was suspended for; 30 more ignored refusals suspend it again.
    const ended = T0 + 150 * MINUTE + 15 * MINUTE;
    setTime(ended);
    expect((await check(limits)).refusal?.code).toBe('rate_limited');
    const again: (string | undefined)[] = [];
    for (let i = 1; i <= 30; i += 1) {
      setTime(ended + i * 1_000);
      again.push((await check(limits)).refusal?.code);
    }
    expect(again.slice(0, 29)).toEqual(Array(29).fill('rate_limited'));
    expect(again[29]).toBe('key_suspended');
  });

  it('a client that waits as its Retry-After says is never suspended: its next burst, in a new window, starts a new count', async () => {
    const store = storeAt();
    const subject = freshSubject();
    const limits = { perMinute: 60, perDay: 1_000 };
    // 70 at once at second 45 of a minute: 60 admitted, 10 refused, told to wait 15 s.
    const first = await Promise.all(
      Array.from({ length: 70 }, () => store.admit(subject, limits, T0 + 45_000, { arrivedAt: T0 + 45_000 })),
    );
    expect(first.filter((admission) => admission.outcome === 'admitted')).toHaveLength(60);
    expect(first.filter((admission) => admission.outcome === 'refused')).toHaveLength(10);
    // It waits the 15 s, then sends 95 at once in the new minute: 60 admitted, 35 refused, none suspended.
    const second = await Promise.all(
      Array.from({ length: 95 }, (_, i) =>
        store.admit(subject, limits, T0 + MINUTE + i * 20, { arrivedAt: T0 + MINUTE }),
      ),
    );
    expect(second.filter((admission) => admission.outcome === 'admitted')).toHaveLength(60);
    expect(second.filter((admission) => admission.outcome === 'refused')).toHaveLength(35);
    // Had it ignored that minute's Retry-After, the same rule would still hold: 175 more a second later (more than 2.9 × 60) suspend it.
    expect(suspendingRefusal(limits)).toBe(175);
    const ignored = [];
    for (let i = 0; i < suspendingRefusal(limits); i += 1)
      ignored.push(
        (await store.admit(subject, limits, T0 + MINUTE + 3_000, { arrivedAt: T0 + MINUTE + 1_000 })).outcome,
      );
    expect(ignored.slice(0, 174)).toEqual(Array(174).fill('refused'));
    expect(ignored[174]).toBe('suspended');
  });
});
