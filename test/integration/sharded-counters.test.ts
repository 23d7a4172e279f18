import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { checkDeclaredRights, runAs } from '../../local/dynamodb-rights';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { COUNT_KEY_REQUESTS } from '../../shared/function-declaration';
import { KeySuspendedError, RateLimitedError, ServiceUnavailableError } from '../../shared/errors';
import { DynamoDbRateCounterStore } from '../../shared/limits/counter-store';
import type { RateLimits } from '../../shared/limits/plans';
import { RateLimiter, type RateLimitDecision } from '../../shared/limits/rate-limiter';
import { testDatabase } from '../support/database';
import { faultProxyForThisFile } from '../support/fault-proxy';

/**
 * Sharded counters (issue 41) against DynamoDB Local: a key whose plan allows more than the
 * threshold a minute is counted on shards. The threshold is set low here (25 a minute), so that a
 * plan of 100 a minute is counted on 4 shards of 25. Clocks are the tests' own.
 */
const db = testDatabase();
const MINUTE = 60_000;
const DAY = 86_400_000;
/** 2026-11-22 10:00:00 UTC, the start of a minute. */
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const THRESHOLD = 25;
/** 4 shards of 25 a minute. */
const SHARDED: RateLimits = { perMinute: 100, perDay: 100_000 };
/** The counted refusal that suspends it: more than 2.9 times its per-minute limit (decisions.md), the whole key's: the 291st. */
const SUSPENDING = 291;

/**
 * `count` requests of SHARDED's `subject` that arrive at `at`, 50 at a time (each counted exactly,
 * so that none of the first SUSPENDING - 1 can be the one that suspends).
 */
async function inBatches(
  limiter: RateLimiter,
  subject: string,
  count: number,
  at: number,
): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let sent = 0; sent < count; sent += 50) {
    decisions.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, count - sent) }, () => limiter.check(subject, SHARDED, undefined, at)),
      )),
    );
  }
  return decisions;
}

const storeAt = (endpoint: string = db.endpoint, random?: () => number) =>
  new DynamoDbRateCounterStore(
    createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: endpoint }),
    db.tableName,
    {
      shardThresholdPerMinute: THRESHOLD,
      ...(random === undefined ? {} : { random }),
    },
  );

let subjects = 0;
const freshSubject = () => {
  subjects += 1;
  return `key#sharded-${subjects}`;
};

/** A limiter instance (its own store, so its own memory of the shards) with a clock the test moves. */
function instance(startAt = T0, endpoint?: string, random?: () => number) {
  let nowMs = startAt;
  const limiter = new RateLimiter(storeAt(endpoint, random), () => nowMs);
  return {
    limiter,
    setTime: (ms: number) => {
      nowMs = ms;
    },
  };
}

async function item(pk: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db.documentClient.send(
    new GetCommand({ TableName: db.tableName, Key: { pk, sk: 'counters' }, ConsistentRead: true }),
  );
  return Item;
}

/** Each shard's count in the minute `at` is in (a shard not counted in since an earlier minute: 0). */
async function shardCounts(subject: string, shards: number, at?: number): Promise<number[]> {
  const items = await Promise.all(Array.from({ length: shards }, (_, shard) => item(`RATE#${subject}#${shard}`)));
  return items.map((shardItem) =>
    at === undefined || shardItem?.minute === Math.floor(at / MINUTE) ? Number(shardItem?.minuteCount ?? 0) : 0,
  );
}

const admittedOf = (decisions: readonly RateLimitDecision[]) =>
  decisions.filter((decision) => decision.refusal === undefined).length;

/** `count` requests of `subject` at once, alternately from two instances at `at`, each arriving at `arrivalOf(i)` (now when not given). */
function twoInstances(at: number) {
  const a = instance(at);
  const b = instance(at);
  return {
    a,
    b,
    atOnce: (subject: string, limits: RateLimits, count: number, arrivalOf?: (i: number) => number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          (i % 2 === 0 ? a : b).limiter.check(subject, limits, undefined, arrivalOf?.(i)),
        ),
      ),
  };
}

describe('which keys are sharded', () => {
  it("a plan at the threshold keeps its one exact item; one above it is counted on shards, the key's item holding the day's layout", async () => {
    const atThreshold = freshSubject();
    const { limiter } = instance();
    await limiter.check(atThreshold, { perMinute: THRESHOLD, perDay: 1_000 });
    expect(await item(`RATE#${atThreshold}`)).toMatchObject({ minuteCount: 1, dayCount: 1 });
    expect((await item(`RATE#${atThreshold}`))?.shards).toBeUndefined();
    expect(await item(`RATE#${atThreshold}#0`)).toBeUndefined();

    const above = freshSubject();
    await limiter.check(above, SHARDED);
    expect(await item(`RATE#${above}`)).toMatchObject({
      shards: 4,
      day: Math.floor(T0 / DAY),
      minuteCount: 0,
      dayCount: 0,
    });
    expect((await shardCounts(above, 4)).reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await item(`RATE#${above}#4`)).toBeUndefined();
    // 101 a minute: 5 shards.
    const five = freshSubject();
    await limiter.check(five, { perMinute: 101, perDay: 100_000 });
    expect(await item(`RATE#${five}`)).toMatchObject({ shards: 5 });
  });
});

describe('the limit is never exceeded, and no request is refused early', () => {
  it('two instances, 200 simultaneous requests of a key of 100 a minute on 4 shards: exactly 100 admitted, each shard at its 25', async () => {
    const subject = freshSubject();
    const { a, b, atOnce } = twoInstances(T0 + 10_000);
    const decisions = await atOnce(subject, SHARDED, 200);
    expect(admittedOf(decisions)).toBe(100);
    expect(decisions.filter((decision) => decision.refusal?.status === 429)).toHaveLength(100);
    expect(await shardCounts(subject, 4)).toEqual([25, 25, 25, 25]);

    // The next minute, the same again: each shard's minute opens afresh.
    a.setTime(T0 + MINUTE + 10_000);
    b.setTime(T0 + MINUTE + 10_000);
    const next = await atOnce(subject, SHARDED, 200);
    expect(admittedOf(next)).toBe(100);
    expect(await shardCounts(subject, 4)).toEqual([25, 25, 25, 25]);
  });

  it('a limit that does not divide evenly: 102 a minute on 5 shards (21, 21, 20, 20, 20), 200 at once from two instances: exactly 102', async () => {
    const subject = freshSubject();
    const decisions = await twoInstances(T0 + 20_000).atOnce(subject, { perMinute: 102, perDay: 100_000 }, 200);
    expect(admittedOf(decisions)).toBe(102);
    expect(await shardCounts(subject, 5)).toEqual([21, 21, 20, 20, 20]);
  });

  it('the day binds as exactly: 200 at once against a day of 70 on 4 shards admit 70, refused by the day until midnight', async () => {
    const subject = freshSubject();
    const { a, atOnce } = twoInstances(T0 + 30_000);
    const limits = { perMinute: 100, perDay: 70 };
    const decisions = await atOnce(subject, limits, 200);
    expect(admittedOf(decisions)).toBe(70);
    a.setTime(T0 + 5 * MINUTE);
    const later = await a.limiter.check(subject, limits);
    expect(later.refusal).toBeInstanceOf(RateLimitedError);
    expect(later.status).toMatchObject({ window: 'day', remaining: 0, limit: 70, resetAt: Date.UTC(2026, 10, 23) });
  });

  it('a shard found full sends the request to another: with every pick on shard 0, the 26th request is counted on another shard', async () => {
    const subject = freshSubject();
    let nowMs = T0 + 40_000;
    const limiter = new RateLimiter(
      storeAt(db.endpoint, () => 0),
      () => nowMs,
    );
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 100; i += 1) decisions.push(await limiter.check(subject, SHARDED));
    expect(admittedOf(decisions)).toBe(100);
    expect(await shardCounts(subject, 4)).toEqual([25, 25, 25, 25]);
    expect((await limiter.check(subject, SHARDED)).refusal).toBeInstanceOf(RateLimitedError);
    nowMs = T0 + MINUTE;
    expect((await limiter.check(subject, SHARDED)).refusal).toBeUndefined();
  });
});

describe('the rate-limit headers of a sharded key', () => {
  it("Remaining is the shard's own remaining times the shards; a refusal tells 0, and Reset is the window's end", async () => {
    const subject = freshSubject();
    // Every pick on the first shard not known full: shard 0 fills, then 1, 2, 3.
    const { limiter } = instance(T0 + 15_000, undefined, () => 0);
    const first = await limiter.check(subject, SHARDED);
    // Its shard has 24 of 25 left: 4 × 24.
    expect(first.status).toMatchObject({ window: 'minute', limit: 100, remaining: 96, resetAt: T0 + MINUTE });
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 99; i += 1) decisions.push(await limiter.check(subject, SHARDED));
    expect(decisions.every((decision) => decision.refusal === undefined)).toBe(true);
    // Each shard counts down from 25: 4 × its remaining, 0 as it fills (shard 0's last), then the next shard's 4 × 24.
    const ofEachShard = Array.from({ length: 25 }, (_, i) => 4 * (24 - i));
    expect(decisions.map((decision) => decision.status.remaining)).toEqual([
      ...ofEachShard.slice(1),
      ...ofEachShard,
      ...ofEachShard,
      ...ofEachShard,
    ]);
    const refused = await limiter.check(subject, SHARDED);
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect(refused.refusal?.retryAfterSeconds).toBe(45);
    expect(refused.status).toMatchObject({ window: 'minute', limit: 100, remaining: 0, resetAt: T0 + MINUTE });
  });
});

describe('suspension on a sharded key works as on one item', () => {
  it('a burst never suspends: 200 refusals arriving within a second of the first', async () => {
    const subject = freshSubject();
    const decisions = await twoInstances(T0 + 1_000).atOnce(
      subject,
      SHARDED,
      300,
      (i) => T0 + 1_000 + Math.floor(i / 4),
    );
    expect(admittedOf(decisions)).toBe(100);
    expect(decisions.filter((decision) => decision.refusal instanceof RateLimitedError)).toHaveLength(200);
  });

  it("a client that ignores Retry-After is suspended by its 291st counted refusal (more than 2.9 × 100); the count is on the key's one item, and every shard refuses during the suspension", async () => {
    const subject = freshSubject();
    // An instance that learned the key's layout a minute before, and picks the shard the test says.
    let pick = 0;
    const knowing = storeAt(db.endpoint, () => pick / 4);
    expect((await knowing.admit(subject, SHARDED, T0 - MINUTE)).outcome).toBe('admitted');
    const { limiter, setTime } = instance(T0);
    for (let i = 0; i < 100; i += 1) await limiter.check(subject, SHARDED, undefined, T0);
    setTime(T0 + 1_000);
    expect((await limiter.check(subject, SHARDED, undefined, T0 + 1_000)).refusal).toBeInstanceOf(RateLimitedError); // the streak starts
    setTime(T0 + 2_000);
    const decisions: RateLimitDecision[] = [];
    decisions.push(
      ...(await inBatches(limiter, subject, SUSPENDING - 1, T0 + 2_000)),
      await limiter.check(subject, SHARDED, undefined, T0 + 2_000),
    );
    expect(decisions.slice(0, 290).map((decision) => decision.refusal?.code)).toEqual(Array(290).fill('rate_limited'));
    expect(decisions[290]?.refusal?.code).toBe('key_suspended');
    expect(decisions[290]?.status.resetAt).toBe(T0 + 2_000 + 15 * MINUTE);
    expect(await item(`RATE#${subject}`)).toMatchObject({ suspendedUntil: T0 + 2_000 + 15 * MINUTE, refusals: 291 });
    for (let shard = 0; shard < 4; shard += 1) {
      const shardItem = await item(`RATE#${subject}#${shard}`);
      // Kept a day past the suspension's end, as the key's item.
      expect(shardItem).toMatchObject({
        suspendedUntil: T0 + 2_000 + 15 * MINUTE,
        expiresAt: Math.ceil((T0 + 2_000 + 15 * MINUTE + DAY) / 1000),
      });
      expect(shardItem?.refusals).toBeUndefined();
    }
    // In a new minute with room on every shard, each shard refuses the instance that knew the layout.
    for (pick = 0; pick < 4; pick += 1)
      expect(await knowing.admit(subject, SHARDED, T0 + 3 * MINUTE)).toMatchObject({
        outcome: 'suspended',
        until: T0 + 2_000 + 15 * MINUTE,
      });
    // Another instance, which knows nothing of it, learns it from the key's item.
    const other = instance(T0 + 3 * MINUTE);
    const during = await other.limiter.check(subject, SHARDED);
    expect(during.refusal).toBeInstanceOf(KeySuspendedError);
    expect(during.refusal?.retryAfterSeconds).toBe((T0 + 2_000 + 15 * MINUTE - (T0 + 3 * MINUTE)) / 1000);
    other.setTime(T0 + 2_000 + 15 * MINUTE);
    expect((await other.limiter.check(subject, SHARDED)).refusal).toBeUndefined();
  });
});

describe('limits changed during the day', () => {
  it("a day's quota used up on every shard, then raised: the next request is admitted by an instance that knew every shard full", async () => {
    const subject = freshSubject();
    const { limiter } = instance(T0);
    const small = { perMinute: 100, perDay: 8 };
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 9; i += 1) decisions.push(await limiter.check(subject, small));
    expect(admittedOf(decisions)).toBe(8);
    expect(decisions[8]?.status).toMatchObject({ window: 'day', remaining: 0 });
    const raised = await limiter.check(subject, { perMinute: 100, perDay: 12 });
    expect(raised.refusal).toBeUndefined();
  });
});

describe("an instance that knows every shard full learns a suspension from the key's item", () => {
  it('refused by every shard, then the key suspended by another instance: its next request is told the suspension', async () => {
    const subject = freshSubject();
    const hammering = instance(T0);
    const other = instance(T0);
    for (let i = 0; i < 100; i += 1) await hammering.limiter.check(subject, SHARDED, undefined, T0);
    expect((await other.limiter.check(subject, SHARDED, undefined, T0)).refusal).toBeInstanceOf(RateLimitedError);
    hammering.setTime(T0 + 2_000);
    await inBatches(hammering.limiter, subject, SUSPENDING, T0 + 2_000);
    other.setTime(T0 + 3_000);
    const told = await other.limiter.check(subject, SHARDED, undefined, T0 + 3_000);
    expect(told.refusal).toBeInstanceOf(KeySuspendedError);
    expect(told.status.resetAt).toBe(T0 + 2_000 + 15 * MINUTE);
  });
});

describe("a suspension across the day's change of layout", () => {
  it('a key suspended on its one item just before midnight, counted on shards from midnight: still suspended until its end, by any instance', async () => {
    const subject = freshSubject();
    const lateAt = Date.UTC(2026, 10, 22, 23, 58, 0);
    const { limiter, setTime } = instance(lateAt);
    const small = { perMinute: 2, perDay: 1_000 };
    await limiter.check(subject, small, undefined, lateAt);
    await limiter.check(subject, small, undefined, lateAt);
    expect((await limiter.check(subject, small, undefined, lateAt)).refusal).toBeInstanceOf(RateLimitedError);
    setTime(lateAt + 2_000);
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 30; i += 1)
      codes.push((await limiter.check(subject, small, undefined, lateAt + 2_000)).refusal?.code);
    expect(codes.at(-1)).toBe('key_suspended');
    const end = lateAt + 2_000 + 15 * MINUTE;
    // Raised above the threshold: from midnight, on shards; the suspension is the key's item's.
    const fresh = instance(Date.UTC(2026, 10, 23, 0, 1, 0));
    const during = await fresh.limiter.check(subject, SHARDED);
    expect(during.refusal).toBeInstanceOf(KeySuspendedError);
    expect(during.status.resetAt).toBe(end);
    expect(await item(`RATE#${subject}`)).toMatchObject({ shards: 4 });
    const another = instance(Date.UTC(2026, 10, 23, 0, 2, 0));
    expect((await another.limiter.check(subject, SHARDED)).status.resetAt).toBe(end);
    another.setTime(end);
    expect((await another.limiter.check(subject, SHARDED)).refusal).toBeUndefined();
    // An instance that learns the layout at the suspension's very end is admitted too.
    expect((await instance(end).limiter.check(subject, SHARDED)).refusal).toBeUndefined();
  });
});

describe('a key moves between one item and shards only when a day starts', () => {
  it("the first requests of a day, from two instances on either side of a plan change, agree on one layout: every admitted request is counted where the key's item says", async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const subject = freshSubject();
      const midnight = Date.UTC(2026, 10, 23 + attempt, 0, 0, 0);
      // Yesterday on one item, so that both the day's claim and a new day on one item are possible.
      await instance(midnight - MINUTE).limiter.check(subject, { perMinute: 20, perDay: 100_000 });
      const below = instance(midnight + 1_000);
      const above = instance(midnight + 1_000);
      const decisions = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2 === 0
            ? below.limiter.check(subject, { perMinute: 20, perDay: 100_000 })
            : above.limiter.check(subject, SHARDED),
        ),
      );
      const admitted = admittedOf(decisions);
      const keyItem = await item(`RATE#${subject}`);
      const onShards = (
        await Promise.all(Array.from({ length: 4 }, (_, shard) => item(`RATE#${subject}#${shard}`)))
      ).map((shardItem) => Number(shardItem?.dayCount ?? 0));
      if (keyItem?.shards === 4) {
        expect([keyItem.dayCount, onShards.reduce((sum, count) => sum + count, 0)]).toEqual([0, admitted]);
      } else {
        expect([keyItem?.dayCount, onShards]).toEqual([admitted, [0, 0, 0, 0]]);
      }
    }
  });

  it('a plan lowered below the threshold keeps counting on shards until midnight UTC, then on one item; raised, one item until midnight, then shards', async () => {
    const subject = freshSubject();
    const { limiter, setTime } = instance(Date.UTC(2026, 10, 22, 23, 0, 0));
    await limiter.check(subject, SHARDED);
    const lowered = { perMinute: 20, perDay: 100_000 };
    // Another instance that never saw the key sharded is told so by the key's item.
    const fresh = instance(Date.UTC(2026, 10, 22, 23, 30, 0));
    for (let i = 0; i < 3; i += 1) await fresh.limiter.check(subject, lowered);
    setTime(Date.UTC(2026, 10, 22, 23, 30, 0));
    for (let i = 0; i < 3; i += 1) await limiter.check(subject, lowered);
    // The six of 23:30 are on the shards, each within its share of the lowered plan (5).
    const counts = await shardCounts(subject, 4, Date.UTC(2026, 10, 22, 23, 30, 0));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(6);
    expect(Math.max(...counts)).toBeLessThanOrEqual(5);
    expect(await item(`RATE#${subject}`)).toMatchObject({ shards: 4, dayCount: 0 });

    setTime(Date.UTC(2026, 10, 23, 0, 0, 5));
    const firstOfDay = await limiter.check(subject, lowered);
    expect(firstOfDay.status).toMatchObject({ remaining: 19, limit: 20 });
    const keyItem = await item(`RATE#${subject}`);
    expect(keyItem).toMatchObject({ minuteCount: 1, dayCount: 1, day: Math.floor(Date.UTC(2026, 10, 23) / DAY) });
    expect(keyItem?.shards).toBeUndefined();

    // Raised again the same day: one item until the next day starts.
    await limiter.check(subject, SHARDED);
    expect(await item(`RATE#${subject}`)).toMatchObject({ minuteCount: 2, dayCount: 2 });
    setTime(Date.UTC(2026, 10, 24, 0, 0, 5));
    await limiter.check(subject, SHARDED);
    expect(await item(`RATE#${subject}`)).toMatchObject({ shards: 4, day: Math.floor(Date.UTC(2026, 10, 24) / DAY) });
  });
});

/** In front of DynamoDB Local, for the tests that count round trips or inject faults (every other store here names DynamoDB Local itself). */
const proxy = faultProxyForThisFile(db.endpoint);

describe('round trips', () => {
  const updates = () => proxy.seen.get('UpdateItem') ?? 0;

  it("a sharded key: the day's layout once per instance, then one write a request; a refusal once every shard is known full writes only its streak, nothing within its first second", async () => {
    const subject = freshSubject();
    const { limiter, setTime } = instance(T0, proxy.endpoint, () => 0);
    let before = updates();
    await limiter.check(subject, SHARDED, undefined, T0);
    expect(updates() - before).toBe(3); // the layout, the shard's count, then its minute opened
    before = updates();
    for (let i = 0; i < 24; i += 1) await limiter.check(subject, SHARDED, undefined, T0);
    expect(updates() - before).toBe(24); // a count each
    before = updates();
    await limiter.check(subject, SHARDED, undefined, T0);
    // Shard 0 full: one more round trip to shard 1, whose minute it opens (a count, then the opening).
    expect(updates() - before).toBe(3);
    before = updates();
    await limiter.check(subject, SHARDED, undefined, T0);
    expect(updates() - before).toBe(1); // shard 0 is known full: straight to shard 1
    for (let i = 0; i < 73; i += 1) await limiter.check(subject, SHARDED, undefined, T0);
    setTime(T0 + 500);
    expect((await limiter.check(subject, SHARDED, undefined, T0 + 500)).refusal).toBeInstanceOf(RateLimitedError);
    before = updates();
    setTime(T0 + 900);
    for (let i = 0; i < 10; i += 1)
      expect((await limiter.check(subject, SHARDED, undefined, T0 + 900)).refusal).toBeInstanceOf(RateLimitedError);
    expect(updates() - before).toBe(0);
    setTime(T0 + 1_600);
    before = updates();
    expect((await limiter.check(subject, SHARDED, undefined, T0 + 1_600)).refusal).toBeInstanceOf(RateLimitedError);
    expect(updates() - before).toBe(1); // counted in the streak
  });

  it("a count that meets a suspension's transaction on its shard is tried again, up to 3 times, then fails as the datastore unavailable (503)", async () => {
    const subject = freshSubject();
    // Every pick on shard 0, whose minute the first request opens.
    const limiter = new RateLimiter(
      storeAt(proxy.endpoint, () => 0),
      () => T0,
    );
    await limiter.check(subject, SHARDED);
    proxy.inject('write-conflict-once', ['UpdateItem']);
    let before = updates();
    expect((await limiter.check(subject, SHARDED)).refusal).toBeUndefined();
    expect(updates() - before).toBe(2);
    proxy.inject('write-conflict', ['UpdateItem']);
    before = updates();
    const failure = await limiter.check(subject, SHARDED).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).cause).toBeInstanceOf(TransactionConflictException);
    expect(updates() - before).toBe(3);
  });

  it('a suspension whose transaction meets another write is decided again: the key is suspended all the same', async () => {
    const subject = freshSubject();
    const { limiter, setTime } = instance(T0, proxy.endpoint);
    for (let i = 0; i < 101; i += 1) await limiter.check(subject, SHARDED, undefined, T0);
    setTime(T0 + 2_000);
    expect(
      (await inBatches(limiter, subject, SUSPENDING - 1, T0 + 2_000)).map((decision) => decision.refusal?.code),
    ).toEqual(Array(SUSPENDING - 1).fill('rate_limited'));
    // The key's item, then its 4 shards: the third is being written by another transaction.
    const before = proxy.seen.get('TransactWriteItems') ?? 0;
    proxy.cancelNextTransaction([
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
      { Code: 'None' },
    ]);
    const decision = await limiter.check(subject, SHARDED, undefined, T0 + 2_000);
    expect((proxy.seen.get('TransactWriteItems') ?? 0) - before).toBe(2);
    expect(decision.refusal?.code).toBe('key_suspended');
    expect(await item(`RATE#${subject}#3`)).toMatchObject({ suspendedUntil: T0 + 2_000 + 15 * MINUTE });
  });
});

describe("the suspension's transaction cancelled", () => {
  /** A key refused by every shard, and 290 counted refusals (2.9 × 100): the next suspends it. */
  async function oneShortOfSuspension() {
    const subject = freshSubject();
    const { limiter, setTime } = instance(T0, proxy.endpoint);
    for (let i = 0; i < 101; i += 1) await limiter.check(subject, SHARDED, undefined, T0);
    setTime(T0 + 2_000);
    await inBatches(limiter, subject, SUSPENDING - 1, T0 + 2_000);
    return { subject, limiter };
  }
  const others = (count: number) => Array.from({ length: count }, () => ({ Code: 'None' }));

  it("by the key's item already suspended (another request first): that suspension's end is the answer", async () => {
    const { subject, limiter } = await oneShortOfSuspension();
    const storedEnd = T0 + 1_500 + 15 * MINUTE;
    proxy.cancelNextTransaction([
      { Code: 'ConditionalCheckFailed', Item: { suspendedUntil: { N: String(storedEnd) } } },
      ...others(4),
    ]);
    const decision = await limiter.check(subject, SHARDED, undefined, T0 + 2_000);
    expect(decision.refusal).toBeInstanceOf(KeySuspendedError);
    expect(decision.status.resetAt).toBe(storedEnd);
  });

  it('throttled: the request is refused all the same (429, not 503), the suspension left for the next refusal, not decided again meanwhile', async () => {
    const { subject, limiter } = await oneShortOfSuspension();
    const before = proxy.seen.get('TransactWriteItems') ?? 0;
    proxy.cancelNextTransaction([
      { Code: 'None' },
      { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' },
      ...others(3),
    ]);
    const refused = await limiter.check(subject, SHARDED, undefined, T0 + 2_000);
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect((proxy.seen.get('TransactWriteItems') ?? 0) - before).toBe(1);
    expect((await item(`RATE#${subject}`))?.suspendedUntil).toBeUndefined();
    // The next counted refusal suspends it.
    expect((await limiter.check(subject, SHARDED, undefined, T0 + 2_000)).refusal).toBeInstanceOf(KeySuspendedError);
  });

  it("never answered: the request's deadline ends the transaction, and the request is refused all the same (429)", async () => {
    const { subject, limiter } = await oneShortOfSuspension();
    proxy.inject('hang', ['TransactWriteItems']);
    const deadline = { signalForCall: () => AbortSignal.timeout(200) };
    const refused = await limiter.check(subject, SHARDED, deadline, T0 + 2_000);
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect(refused.status).toMatchObject({ window: 'minute', remaining: 0, resetAt: T0 + MINUTE });
  });

  it("a refusal whose count is throttled on the key's item: refused all the same (429), uncounted", async () => {
    const { subject, limiter } = await oneShortOfSuspension();
    const counted = (await item(`RATE#${subject}`))?.refusals;
    proxy.inject('throttle', ['UpdateItem']);
    const refused = await limiter.check(subject, SHARDED, undefined, T0 + 2_000);
    proxy.clear();
    expect(refused.refusal).toBeInstanceOf(RateLimitedError);
    expect((await item(`RATE#${subject}`))?.refusals).toBe(counted);
  });
});

describe("with an operation's declared rights alone", () => {
  it("counts a sharded key, refuses it and suspends it (its transaction included) with COUNT_KEY_REQUESTS, the counters' one declared right", async () => {
    const client = createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint });
    checkDeclaredRights(client);
    let nowMs = T0;
    const limiter = new RateLimiter(
      new DynamoDbRateCounterStore(client, db.tableName, { shardThresholdPerMinute: THRESHOLD }),
      () => nowMs,
    );
    const subject = freshSubject();
    const codes = await runAs(
      { functionName: 'getPet', rights: [COUNT_KEY_REQUESTS], tableName: db.tableName },
      async () => {
        const seen: (string | undefined)[] = [];
        for (let i = 0; i < 101; i += 1)
          seen.push((await limiter.check(subject, SHARDED, undefined, T0)).refusal?.code);
        nowMs = T0 + 2_000;
        seen.push(
          ...(await inBatches(limiter, subject, SUSPENDING - 1, T0 + 2_000)).map((decision) => decision.refusal?.code),
        );
        seen.push((await limiter.check(subject, SHARDED, undefined, T0 + 2_000)).refusal?.code);
        return seen;
      },
    );
    expect(codes.filter((code) => code === undefined)).toHaveLength(100);
    expect(codes.at(-1)).toBe('key_suspended');
  });
});
