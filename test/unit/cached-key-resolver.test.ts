import { describe, expect, it } from 'vitest';
import { CachedKeyResolver } from '../../shared/auth/cached-key-resolver';
import type { ApiKeyResolver, Principal } from '../../shared/auth/principal';

const principal: Principal = { keyId: 'k1', plan: 'free', limits: { perMinute: 60, perDay: 1000 } };

function countingResolver(known: Record<string, Principal>) {
  const calls: string[] = [];
  const resolver: ApiKeyResolver = {
    resolve: async (key) => {
      calls.push(key);
      return known[key];
    },
  };
  return { resolver, calls };
}

describe('CachedKeyResolver', () => {
  it('answers a known key from memory until the entry expires', async () => {
    let now = 0;
    const { resolver, calls } = countingResolver({ good: principal });
    const cached = new CachedKeyResolver(resolver, 60_000, 10, () => now);
    expect(await cached.resolve('good')).toEqual(principal);
    now = 59_999;
    expect(await cached.resolve('good')).toEqual(principal);
    expect(calls).toHaveLength(1);
    now = 60_000;
    await cached.resolve('good');
    expect(calls).toHaveLength(2);
  });

  it('does not remember unknown keys, so a key created meanwhile works at once', async () => {
    const known: Record<string, Principal> = {};
    const { resolver, calls } = countingResolver(known);
    const cached = new CachedKeyResolver(resolver);
    expect(await cached.resolve('new')).toBeUndefined();
    known.new = principal;
    expect(await cached.resolve('new')).toEqual(principal);
    expect(calls).toEqual(['new', 'new']);
  });

  it('holds at most maxEntries keys, dropping the oldest', async () => {
    const { resolver, calls } = countingResolver({ a: principal, b: principal, c: principal });
    const cached = new CachedKeyResolver(resolver, 60_000, 2);
    await cached.resolve('a');
    await cached.resolve('b');
    await cached.resolve('c');
    await cached.resolve('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
