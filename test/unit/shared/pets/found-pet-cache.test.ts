import { describe, expect, it } from 'vitest';
import { CACHED_PET_MS, CACHED_PETS, FoundPetCache } from '../../../../shared/pets/found-pet-cache';
import type { Pet } from '../../../../shared/pets/schema';

const rex: Pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };

/** A cache on a clock the test moves, and a read that counts its calls and answers what it is given. */
function cacheOn(start = 1_000) {
  let nowMs = start;
  const cache = new FoundPetCache(() => nowMs);
  let reads = 0;
  const read = (answer: Pet | undefined) => () => {
    reads += 1;
    return Promise.resolve(answer);
  };
  return { cache, read, reads: () => reads, advance: (ms: number) => (nowMs += ms) };
}

describe('the cache of found pets (issue 52)', () => {
  it('serves a found pet from memory for up to a second after it was read, then reads it again', async () => {
    const { cache, read, reads, advance } = cacheOn();
    expect(await cache.pet(7, read(rex))).toBe(rex);
    advance(CACHED_PET_MS - 1);
    expect(await cache.pet(7, read(undefined))).toBe(rex);
    expect(reads()).toBe(1);
    advance(1);
    expect(await cache.pet(7, read({ ...rex, name: 'Rex II' }))).toEqual({ ...rex, name: 'Rex II' });
    expect(reads()).toBe(2);
  });

  it('never keeps a miss: a pet created after a 404 is found at once', async () => {
    const { cache, read, reads } = cacheOn();
    expect(await cache.pet(7, read(undefined))).toBeUndefined();
    expect(await cache.pet(7, read(rex))).toBe(rex);
    expect(reads()).toBe(2);
  });

  it('forgets a pet read again as missing (an expired release pet), and keeps each id apart', async () => {
    const { cache, read, reads, advance } = cacheOn();
    await cache.pet(7, read(rex));
    await cache.pet(8, read({ ...rex, id: 8 }));
    advance(CACHED_PET_MS);
    expect(await cache.pet(7, read(undefined))).toBeUndefined();
    expect(await cache.pet(7, read({ ...rex, name: 'back' }))).toEqual({ ...rex, name: 'back' });
    expect(await cache.pet(8, read(undefined))).toBeUndefined();
    expect(reads()).toBe(5);
  });

  it('keeps at most CACHED_PETS, dropping the one read longest ago', async () => {
    const { cache, read, reads } = cacheOn();
    for (let id = 1; id <= CACHED_PETS + 1; id += 1) await cache.pet(id, read({ ...rex, id }));
    expect(reads()).toBe(CACHED_PETS + 1);
    await cache.pet(2, read(undefined));
    await cache.pet(CACHED_PETS + 1, read(undefined));
    expect(reads()).toBe(CACHED_PETS + 1);
    expect(await cache.pet(1, read({ ...rex, id: 1 }))).toEqual({ ...rex, id: 1 });
    expect(reads()).toBe(CACHED_PETS + 2);
  });
});
