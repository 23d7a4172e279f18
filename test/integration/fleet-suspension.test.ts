import { describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { DynamoDbRateCounterStore } from '../../shared/limits/counter-store';
import { STANDARD_PLAN_LIMITS, type RateLimits } from '../../shared/limits/plans';
import { RateLimiter } from '../../shared/limits/rate-limiter';
import { testDatabase } from '../support/database';

/**
 * A fleet that obeys is never suspended; a client that ignores is (issue 49, finding 2;
 * decisions.md, rate limits). Simulated on a controlled clock against the real counters in
 * DynamoDB Local: each request is sent at its simulated instant (its arrival, as API Gateway
 * stamps it), counted by one of three function instances in turn, and its answer decides when
 * its sender sends again. The rule: a key is suspended once more than 2.9 times its per-minute
 * limit of its requests are refused in one window, counting those that arrived at least 1 s after
 * the window's first refusal (Free: the 175th; Pro: the 871st; 100 a minute: the 291st).
 */
const db = testDatabase();
const MINUTE = 60_000;
/** 2026-11-22 10:00:00 UTC, the start of a minute. */
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
/** Keys above this many a minute are counted on shards: set low, so that a key of 100 a minute is 4 shards. */
const SHARD_THRESHOLD = 25;

let subjects = 0;

interface Sender {
  /** When it sends next. */
  next: number;
  /** What it does after an answer: when it sends next (undefined: it stops). */
  readonly after: (answer: {
    at: number;
    code: string | undefined;
    retryAfterSeconds: number | undefined;
  }) => number | undefined;
}

interface Run {
  readonly admitted: number;
  readonly rateLimited: number;
  /** When the first `key_suspended` came (undefined: never). */
  readonly suspendedAt: number | undefined;
  /** The most refusals any one sender had in one window. */
  readonly mostRefusalsOfOneSenderInAWindow: number;
  /**
   * The most refusals of one window that the rule counts (those that arrived at least 1 s after the
   * window's first refusal), by the simulation's own tally: how near a fleet came to the bound.
   */
  readonly mostCountedInAWindow: number;
}

/**
 * Sends every sender's requests in the order of their instants until `until` (or a suspension),
 * one at a time, each counted by one of three limiter instances on the shared simulated clock.
 */
async function simulate(limits: RateLimits, senders: Sender[], until: number): Promise<Run> {
  subjects += 1;
  const subject = `key#fleet-${subjects}`;
  let nowMs = 0;
  const client = createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: db.endpoint });
  const instances = Array.from(
    { length: 3 },
    () =>
      new RateLimiter(
        new DynamoDbRateCounterStore(client, db.tableName, { shardThresholdPerMinute: SHARD_THRESHOLD }),
        () => nowMs,
      ),
  );
  let admitted = 0;
  let rateLimited = 0;
  let sent = 0;
  const refusalsInWindow = new Map<string, number>();
  const windows = new Map<string, { firstRefusal: number; counted: number }>();
  const result = (suspendedAt: number | undefined): Run => ({
    admitted,
    rateLimited,
    suspendedAt,
    mostRefusalsOfOneSenderInAWindow: Math.max(0, ...refusalsInWindow.values()),
    mostCountedInAWindow: Math.max(0, ...[...windows.values()].map((window) => window.counted)),
  });
  for (;;) {
    let sender: Sender | undefined;
    for (const candidate of senders)
      if (candidate.next < until && (sender === undefined || candidate.next < sender.next)) sender = candidate;
    if (sender === undefined) break;
    const at = sender.next;
    nowMs = at;
    const decision = await (instances[sent % instances.length] as RateLimiter).check(subject, limits, undefined, at);
    sent += 1;
    const code = decision.refusal?.code;
    if (code === 'key_suspended') return result(at);
    if (code === undefined) admitted += 1;
    else {
      rateLimited += 1;
      const window = `${decision.status.window}${decision.status.resetAt}`;
      const ofSender = `${senders.indexOf(sender)}@${window}`;
      refusalsInWindow.set(ofSender, (refusalsInWindow.get(ofSender) ?? 0) + 1);
      const tally = windows.get(window) ?? { firstRefusal: at, counted: 0 };
      if (at >= tally.firstRefusal + 1_000) tally.counted += 1;
      windows.set(window, tally);
    }
    const next = sender.after({ at, code, retryAfterSeconds: decision.refusal?.retryAfterSeconds });
    sender.next = next ?? Number.POSITIVE_INFINITY;
  }
  return result(undefined);
}

/** `workers` workers, each sending one request every `every` ms (spread evenly from `start`), and after a 429 waiting its Retry-After. */
function obeyingFleet(workers: number, start: number, every = 2_000): Sender[] {
  return Array.from({ length: workers }, (_, worker) => ({
    next: start + Math.floor((worker * every) / workers),
    after: ({ at, retryAfterSeconds }) => at + (retryAfterSeconds === undefined ? every : retryAfterSeconds * 1_000),
  }));
}

/** One client sending `perSecond` requests a second from `start`, whatever it is answered. */
function ignoringClient(perSecond: number, start: number): Sender[] {
  return [{ next: start, after: ({ at }) => at + 1_000 / perSecond }];
}

describe('a fleet that obeys Retry-After is never suspended', () => {
  it("Free: 80 workers on one key, each one request every 2 s and waiting its own 429's Retry-After: 0 suspensions over 5 minutes of windows", async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.free, obeyingFleet(80, T0), T0 + 5 * MINUTE);
    expect(run.suspendedAt).toBeUndefined();
    // The key used its whole minute each minute, and the refusals kept coming, one per worker and window.
    expect(run.admitted).toBe(5 * 60);
    expect(run.rateLimited).toBeGreaterThan(5 * 60);
    expect(run.mostRefusalsOfOneSenderInAWindow).toBe(1);
  });

  // Workers each sending every 20 s spread their refusals over the minute, nearly all counted: near the bound.
  it('Free, at the bound: 120 workers (twice the per-minute limit), one request every 20 s: nearly 2 × 60 counted refusals in a window, 0 suspensions over 5 minutes', async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.free, obeyingFleet(120, T0, 20_000), T0 + 5 * MINUTE);
    expect(run.suspendedAt).toBeUndefined();
    expect(run.admitted).toBe(5 * 60);
    expect(run.mostRefusalsOfOneSenderInAWindow).toBe(1);
    expect(run.mostCountedInAWindow).toBeGreaterThanOrEqual(110);
  });

  it('Pro, at the bound: 600 workers (twice the per-minute limit), one request every 20 s: nearly 2 × 300 counted in a window, 0 suspensions over 2 minutes', async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.pro, obeyingFleet(600, T0, 20_000), T0 + 2 * MINUTE);
    expect(run.suspendedAt).toBeUndefined();
    expect(run.admitted).toBe(2 * 300);
    expect(run.mostRefusalsOfOneSenderInAWindow).toBe(1);
    expect(run.mostCountedInAWindow).toBeGreaterThanOrEqual(550);
  });

  it("the day's window: 120 workers on a Free key whose day runs out at 23:50: each refused once by the day, waiting until midnight, never suspended, served again after it", async () => {
    // A day of 1,000 whose first 940 requests came before (as a day's traffic).
    const lateAt = Date.UTC(2026, 10, 22, 23, 50, 0);
    const limits = STANDARD_PLAN_LIMITS.free;
    const run = await simulate(
      limits,
      [...usedDay(940, Date.UTC(2026, 10, 22, 8, 0, 0)), ...obeyingFleet(120, lateAt, 20_000)],
      lateAt + 12 * MINUTE,
    );
    expect(run.suspendedAt).toBeUndefined();
    // The day's last 60, then from midnight a new day: 60 in each of its first two minutes.
    expect(run.admitted).toBe(940 + 60 + 2 * 60);
    expect(run.mostRefusalsOfOneSenderInAWindow).toBe(1);
    expect(run.mostCountedInAWindow).toBeGreaterThanOrEqual(55);
  });

  it('a sharded key (100 a minute on 4 shards): 200 workers, one request every 20 s: nearly 2 × 100 counted in a window, 0 suspensions over 3 minutes', async () => {
    const limits = { perMinute: 100, perDay: 1_000_000 };
    const run = await simulate(limits, obeyingFleet(200, T0, 20_000), T0 + 3 * MINUTE);
    expect(run.suspendedAt).toBeUndefined();
    expect(run.admitted).toBe(3 * 100);
    expect(run.mostRefusalsOfOneSenderInAWindow).toBe(1);
    expect(run.mostCountedInAWindow).toBeGreaterThanOrEqual(185);
  });
});

describe('a client that goes on after its 429s is suspended within the window', () => {
  it('Free: one client at 10 a second: 60 admitted, then the 175th refusal counted (from 1 s after its first) suspends it, 24.4 s into the minute', async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.free, ignoringClient(10, T0), T0 + 5 * MINUTE);
    expect(run.admitted).toBe(60);
    // Refused from 6 s (the 61st request); counted from 7 s (10 of that second's not); the 175th counted at 24.4 s.
    expect(run.rateLimited).toBe(10 + 174);
    expect(run.suspendedAt).toBe(T0 + 24_400);
  });

  it('Pro: one client at 50 a second (ten times its rate): 300 admitted, suspended by the 871st counted refusal, 24.4 s into the minute', async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.pro, ignoringClient(50, T0), T0 + 5 * MINUTE);
    expect(run.admitted).toBe(300);
    expect(run.rateLimited).toBe(50 + 870);
    expect(run.suspendedAt).toBe(T0 + 24_400);
  });

  it('Free, at four times its rate (4 a second) through a whole minute: suspended within it', async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.free, ignoringClient(4, T0), T0 + 5 * MINUTE);
    expect(run.admitted).toBe(60);
    // Refused from 15 s; counted from 16 s (4 of that second's not); the 175th counted at 16 s + 174 / 4 = 59.5 s.
    expect(run.suspendedAt).toBe(T0 + 59_500);
  });

  it("Free, just under four times its rate (one request every 260 ms): 167 counted refusals a minute, under the 175 that suspend: the rule's edge", async () => {
    const run = await simulate(STANDARD_PLAN_LIMITS.free, [{ next: T0, after: ({ at }) => at + 260 }], T0 + 3 * MINUTE);
    expect(run.suspendedAt).toBeUndefined();
    expect(run.admitted).toBe(3 * 60);
    expect(run.mostCountedInAWindow).toBe(167);
  });

  it("the day's window: a Free client whose day ran out goes on at 10 a second: the 175th counted refusal of the day suspends it", async () => {
    const lateAt = Date.UTC(2026, 10, 22, 20, 0, 0);
    const run = await simulate(
      STANDARD_PLAN_LIMITS.free,
      [...usedDay(1_000, Date.UTC(2026, 10, 22, 8, 0, 0)), ...ignoringClient(10, lateAt)],
      lateAt + 5 * MINUTE,
    );
    expect(run.admitted).toBe(1_000);
    // Refused by the day from its first request; counted from 1 s later; the 175th counted at 18.4 s.
    expect(run.suspendedAt).toBe(lateAt + 18_400);
  });

  it('a sharded key (100 a minute on 4 shards): one client at 20 a second: 100 admitted, the 291st counted refusal suspends it within the minute', async () => {
    const run = await simulate({ perMinute: 100, perDay: 1_000_000 }, ignoringClient(20, T0), T0 + 5 * MINUTE);
    expect(run.admitted).toBe(100);
    // Refused from 5 s; counted from 6 s; the 291st counted at 6 s + 290 / 20 = 20.5 s.
    expect(run.suspendedAt).toBe(T0 + 20_500);
  });
});

/** `count` requests of the day, one every 20 s from `from` (all admitted: never more than 3 a minute). */
function usedDay(count: number, from: number): Sender[] {
  let left = count;
  return [
    {
      next: from,
      after: ({ at }) => {
        left -= 1;
        return left > 0 ? at + 20_000 : undefined;
      },
    },
  ];
}
