import { describe, expect, it } from 'vitest';
import { BUSY_REQUESTS, CACHED_PAGE_MS, FirstPageCache } from '../../../../shared/pets/first-page-cache';
import type { MergedPage } from '../../../../shared/pets/page-merge';

const pageWith = (id: number, hasMore = true): MergedPage => ({
  pets: [{ id, name: `pet ${id}`, categoryId: 1, status: 'available' }],
  hasMore,
});

function cacheOnAClock() {
  let nowMs = Date.UTC(2026, 10, 26, 14);
  let reads = 0;
  const cache = new FirstPageCache(() => nowMs);
  const read = (page: MergedPage) => () => {
    reads += 1;
    return Promise.resolve(page);
  };
  return { cache, read, tick: (ms: number) => (nowMs += ms), reads: () => reads };
}

describe('the first-page cache', () => {
  it('reads afresh until the instance was asked for the page 5 times within a second; then serves it for at most a second', async () => {
    const { cache, read, tick, reads } = cacheOnAClock();
    for (let i = 1; i < BUSY_REQUESTS; i += 1) {
      expect(await cache.page(undefined, 20, read(pageWith(i)))).toEqual(pageWith(i));
      tick(100);
    }
    expect(reads()).toBe(4);
    // The fifth within a second: read, and kept (read at this moment).
    expect(await cache.page(undefined, 20, read(pageWith(5)))).toEqual(pageWith(5));
    for (let age = 100; age < CACHED_PAGE_MS; age += 100) {
      tick(100);
      expect(await cache.page(undefined, 20, read(pageWith(100 + age)))).toEqual(pageWith(5));
    }
    expect(reads()).toBe(5);
    tick(100);
    expect(await cache.page(undefined, 20, read(pageWith(7)))).toEqual(pageWith(7));
    expect(reads()).toBe(6);
  });

  it('never serves a quiet instance from memory: 5 requests spread over more than a second all read', async () => {
    const { cache, read, tick, reads } = cacheOnAClock();
    for (let i = 1; i <= 10; i += 1) {
      expect(await cache.page(undefined, 20, read(pageWith(i)))).toEqual(pageWith(i));
      tick(250);
    }
    expect(reads()).toBe(10);
  });

  it('never keeps a last page (no next page): served stale it could end a walk early', async () => {
    const { cache, read, reads } = cacheOnAClock();
    for (let i = 1; i <= 10; i += 1)
      expect(await cache.page(undefined, 20, read(pageWith(i, false)))).toEqual(pageWith(i, false));
    expect(reads()).toBe(10);
  });

  it('keeps each filter and page size apart', async () => {
    const { cache, read } = cacheOnAClock();
    for (let i = 0; i < BUSY_REQUESTS; i += 1) await cache.page(undefined, 20, read(pageWith(1)));
    expect(await cache.page(undefined, 20, read(pageWith(9)))).toEqual(pageWith(1));
    expect(await cache.page('sold', 20, read(pageWith(2)))).toEqual(pageWith(2));
    expect(await cache.page(undefined, 21, read(pageWith(3)))).toEqual(pageWith(3));
    for (let i = 0; i < BUSY_REQUESTS; i += 1) await cache.page('sold', 20, read(pageWith(4)));
    expect(await cache.page('pending', 20, read(pageWith(5)))).toEqual(pageWith(5));
    expect(await cache.page('sold', 20, read(pageWith(6)))).toEqual(pageWith(4));
  });

  it('reads afresh once the instance is no longer busy, even while the page it kept is young', async () => {
    const { cache, read, tick, reads } = cacheOnAClock();
    // Five within 999 ms: the fifth is kept.
    for (const [i, wait] of [0, 250, 250, 250, 249].entries()) {
      tick(wait);
      await cache.page(undefined, 20, read(pageWith(i)));
    }
    // 301 ms later the page is young, but the last five requests span 1,050 ms: not busy.
    tick(301);
    expect(await cache.page(undefined, 20, read(pageWith(99)))).toEqual(pageWith(99));
    expect(reads()).toBe(6);
  });
});
