import { describe, expect, it } from 'vitest';
import { KeySuspendedError } from '../../../../shared/errors';
import type { Admission, RateCounterStore } from '../../../../shared/limits/counter-store';
import { MAX_REMEMBERED_SUSPENSIONS, RateLimiter } from '../../../../shared/limits/rate-limiter';

/**
 * What a limiter remembers of suspensions, bounded per container. A store that suspends every
 * subject stands in for DynamoDB here (the counting itself is tested on DynamoDB Local:
 * test/integration/rate-limiter.test.ts); it counts the subjects it is asked about.
 */
const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const UNTIL = NOW + 15 * 60_000;
const limits = { perMinute: 1, perDay: 10 };

function suspendingStore() {
  const asked: string[] = [];
  const store: RateCounterStore = {
    admit: async (subject: string): Promise<Admission> => {
      asked.push(subject);
      return { outcome: 'suspended', until: UNTIL, minuteCount: 1, dayCount: 1 };
    },
  };
  return { store, asked };
}

describe('the suspensions a limiter remembers', () => {
  it(`are at most ${MAX_REMEMBERED_SUSPENSIONS}: the oldest is forgotten first, and the store asked again about it`, async () => {
    const { store, asked } = suspendingStore();
    const limiter = new RateLimiter(store, () => NOW);
    for (let i = 0; i <= MAX_REMEMBERED_SUSPENSIONS; i += 1) await limiter.check(`key#${i}`, limits);
    asked.length = 0;
    // The newest and the second oldest are remembered: refused without the store.
    for (const subject of [`key#${MAX_REMEMBERED_SUSPENSIONS}`, `key#${MAX_REMEMBERED_SUSPENSIONS - 1}`, 'key#1']) {
      expect((await limiter.check(subject, limits)).refusal).toBeInstanceOf(KeySuspendedError);
    }
    expect(asked).toEqual([]);
    // The oldest was forgotten when the last was remembered.
    expect((await limiter.check('key#0', limits)).refusal).toBeInstanceOf(KeySuspendedError);
    expect(asked).toEqual(['key#0']);
  });

  it('a remembered suspension ends at its time: the store is asked again from then on', async () => {
    const { store, asked } = suspendingStore();
    let nowMs = NOW;
    const limiter = new RateLimiter(store, () => nowMs);
    await limiter.check('key#a', limits);
    nowMs = UNTIL - 1;
    expect(limiter.knownSuspension('key#a', limits)?.status.resetAt).toBe(UNTIL);
    nowMs = UNTIL;
    expect(limiter.knownSuspension('key#a', limits)).toBeUndefined();
    await limiter.check('key#a', limits);
    expect(asked).toEqual(['key#a', 'key#a']);
  });
});
