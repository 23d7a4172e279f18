import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../../shared/clock';

describe('isoTimestamp', () => {
  it('writes what Date#toISOString writes, across milliseconds, seconds and days', () => {
    const start = Date.parse('2026-11-22T23:59:58.990Z');
    const times = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1009, 1010, 1999, 2000, 2001, 86_400_000].map(
      (offset) => start + offset,
    );
    // Forwards, backwards and at random: the cached second must never leak into another one.
    for (const ms of [
      ...times,
      ...[...times].reverse(),
      ...Array.from({ length: 2000 }, () => Math.floor(Math.random() * 4e12)),
    ]) {
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
