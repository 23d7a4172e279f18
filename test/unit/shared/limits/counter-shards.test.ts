import { describe, expect, it } from 'vitest';
import {
  estimatedCount,
  MAX_SHARDS,
  PARTITION_WRITES_PER_SECOND,
  SHARD_THRESHOLD_PER_MINUTE,
  shardCountFor,
  shareOf,
  sharesOf,
} from '../../../../shared/limits/counter-shards';
import { DayLayout, LayoutMemory, MAX_REMEMBERED_LAYOUTS } from '../../../../shared/limits/shard-memory';
import { windowsAt } from '../../../../shared/limits/windows';

/** How a key's counts are split over shards (issue 41), and what a container remembers of them. */
describe('the split', () => {
  it("the threshold is half a partition's writes, as a minute's requests: 30,000", () => {
    expect(PARTITION_WRITES_PER_SECOND).toBe(1_000);
    expect(SHARD_THRESHOLD_PER_MINUTE).toBe(30_000);
  });

  it("one item up to the threshold; above it, enough shards that none takes more than the threshold at the plan's full rate", () => {
    expect(shardCountFor({ perMinute: 30_000, perDay: 1 }, 30_000)).toBe(1);
    expect(shardCountFor({ perMinute: 30_001, perDay: 1 }, 30_000)).toBe(2);
    expect(shardCountFor({ perMinute: 60_000, perDay: 1 }, 30_000)).toBe(2);
    expect(shardCountFor({ perMinute: 100_000, perDay: 1 }, 30_000)).toBe(4);
    expect(shardCountFor({ perMinute: 120_000, perDay: 1 }, 30_000)).toBe(4);
    expect(shardCountFor({ perMinute: 120_001, perDay: 1 }, 30_000)).toBe(5);
    // At most 99: a suspension's transaction holds the key's item and every shard (100 items).
    expect(MAX_SHARDS).toBe(99);
    expect(shardCountFor({ perMinute: 99 * 30_000, perDay: 1 }, 30_000)).toBe(99);
    expect(shardCountFor({ perMinute: 99 * 30_000 + 1, perDay: 1 }, 30_000)).toBe(99);
    expect(shardCountFor({ perMinute: 5_000, perDay: 1 }, 25)).toBe(99);
    // At 120,000 a minute, 2,000 a second: 500 a shard, half its partition's 1,000 writes.
    expect(120_000 / 60 / shardCountFor({ perMinute: 120_000, perDay: 1 }, SHARD_THRESHOLD_PER_MINUTE)).toBe(
      PARTITION_WRITES_PER_SECOND / 2,
    );
  });

  it('shares add up to the limit exactly, the first ones one more when it does not divide', () => {
    expect([0, 1, 2, 3, 4].map((shard) => shareOf(102, 5, shard))).toEqual([21, 21, 20, 20, 20]);
    expect([0, 1, 2, 3].map((shard) => shareOf(100, 4, shard))).toEqual([25, 25, 25, 25]);
    expect([0, 1, 2, 3].map((shard) => shareOf(3, 4, shard))).toEqual([1, 1, 1, 0]);
    for (const [limit, shards] of [
      [120_000, 4],
      [1_000_001, 7],
      [5, 9],
    ] as const) {
      expect(
        Array.from({ length: shards }, (_, shard) => shareOf(limit, shards, shard)).reduce(
          (sum, share) => sum + share,
          0,
        ),
      ).toBe(limit);
    }
    expect(sharesOf({ perMinute: 102, perDay: 7 }, 5, 1)).toEqual({ perMinute: 21, perDay: 2 });
    expect(sharesOf({ perMinute: 102, perDay: 7 }, 5, 2)).toEqual({ perMinute: 20, perDay: 1 });
  });

  it("the count a request is told: the limit less its shard's remaining times the shards, never below 0; exact on one item", () => {
    expect(estimatedCount(100, 25, 1, 4)).toBe(4);
    expect(estimatedCount(100, 25, 25, 4)).toBe(100);
    expect(estimatedCount(102, 21, 0, 5)).toBe(0); // 102 - 105 would be below 0
    expect(estimatedCount(60, 60, 7, 1)).toBe(7);
  });
});

describe("a container's memory of a key's shards", () => {
  const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
  const windows = windowsAt(T0);
  const limits = { perMinute: 100, perDay: 10_000 };
  const none = new Set<number>();

  it('picks among the shards neither tried nor known full, at random; none once every one is full in the minute or the day', () => {
    const layout = new DayLayout(windows.day.id, 4, windows.minute.id);
    layout.countFor(limits, windows);
    expect(layout.openShard(none, () => 0)).toBe(0);
    expect(layout.openShard(none, () => 0.99)).toBe(3);
    expect(layout.openShard(new Set([0, 3]), () => 0)).toBe(1);
    layout.markFull(0, 'minute', windows);
    layout.markFull(3, 'day', windows);
    expect(layout.openShard(none, () => 0)).toBe(1);
    expect(layout.openShard(none, () => 0.99)).toBe(2);
    expect(layout.openShard(new Set([1, 2]), () => 0)).toBeUndefined();
    layout.markFull(1, 'minute', windows);
    expect(layout.fullWindow).toBe('minute');
    layout.markFull(2, 'minute', windows);
    expect(layout.openShard(none, () => 0)).toBeUndefined();
    expect(layout.fullWindow).toBe('minute');
    // The next minute: the minute's full shards are open again, the day's stay full.
    const next = windowsAt(T0 + 60_000);
    layout.countFor(limits, next);
    expect([0, 0.34, 0.67, 0.99].map((r) => layout.openShard(none, () => r))).toEqual([0, 1, 2, 2]);
    // An earlier minute (a request that started before) moves nothing back.
    layout.countFor(limits, windows);
    layout.markFull(0, 'minute', windows);
    expect(layout.openShard(none, () => 0)).toBe(0);
  });

  it("tells the day once every shard's day is full", () => {
    const layout = new DayLayout(windows.day.id, 2, windows.minute.id);
    layout.countFor(limits, windows);
    layout.markFull(0, 'day', windows);
    expect(layout.fullWindow).toBe('minute');
    layout.markFull(1, 'day', windows);
    expect(layout.fullWindow).toBe('day');
    expect(layout.openShard(none, () => 0)).toBeUndefined();
  });

  it('forgets the full shards when the limits change (a plan raised today), and ignores one found full in another day', () => {
    const layout = new DayLayout(windows.day.id, 2, windows.minute.id);
    layout.countFor(limits, windows);
    layout.markFull(0, 'day', windows);
    layout.markFull(1, 'minute', windows);
    layout.countFor({ ...limits }, windows);
    expect(layout.openShard(none, () => 0)).toBeUndefined();
    layout.countFor({ perMinute: 100, perDay: 20_000 }, windows);
    expect(layout.openShard(none, () => 0)).toBe(0);
    layout.countFor({ perMinute: 200, perDay: 20_000 }, windows);
    layout.markFull(0, 'day', windows);
    layout.markFull(1, 'minute', windows);
    layout.countFor({ perMinute: 201, perDay: 20_000 }, windows);
    expect(layout.openShard(none, () => 0.99)).toBe(1);
    layout.markFull(0, 'day', windowsAt(T0 + 86_400_000));
    expect(layout.openShard(none, () => 0)).toBe(0);
    expect(layout.fullWindow).toBe('minute');
  });

  it('knows a layout for its day only, and forgets the oldest key past its bound', () => {
    const memory = new LayoutMemory();
    const layout = memory.remember('key#a', windows, 4);
    expect(memory.get('key#a', windows)).toBe(layout);
    expect(memory.remember('key#a', windows, 4)).toBe(layout);
    expect(memory.get('key#a', windowsAt(T0 + 86_400_000))).toBeUndefined();
    expect(memory.get('key#b', windows)).toBeUndefined();
    // Another layout for the same day replaces it (a plan read again as today's).
    expect(memory.remember('key#a', windows, 1).shards).toBe(1);
    for (let i = 0; i < MAX_REMEMBERED_LAYOUTS; i += 1) memory.remember(`key#${i}`, windows, 2);
    expect(memory.get('key#a', windows)).toBeUndefined();
    expect(memory.get('key#0', windows)?.shards).toBe(2);
    expect(memory.get(`key#${MAX_REMEMBERED_LAYOUTS - 1}`, windows)?.shards).toBe(2);
  });
});
