import { describe, expect, it } from 'vitest';
import { type Config, readConfig } from '../../../shared/config';

describe('the pet store settings read from the environment', () => {
  it('default to the deployed behaviour: a second before a listing shows an id, the first-page cache on', () => {
    expect(readConfig({})).toMatchObject({
      listingSettleMs: undefined,
      firstPageCache: true,
      foundPetCache: true,
      listingSets: undefined,
    });
    expect(
      readConfig({ LISTING_SETTLE_MS: '0', FIRST_PAGE_CACHE: 'off', FOUND_PET_CACHE: 'off', LISTING_SETS: '1' }),
    ).toMatchObject({ listingSettleMs: 0, firstPageCache: false, foundPetCache: false, listingSets: 1 });
    expect(
      readConfig({ LISTING_SETTLE_MS: '1500', FIRST_PAGE_CACHE: 'on', FOUND_PET_CACHE: 'on', LISTING_SETS: '2' }),
    ).toMatchObject({ listingSettleMs: 1500, firstPageCache: true, foundPetCache: true, listingSets: 2 });
    expect(readConfig({ FOUND_PET_CACHE: '', LISTING_SETS: '' })).toMatchObject({
      foundPetCache: true,
      listingSets: undefined,
    });
    // The former pets layout is retired: its setting is read no more (a stage's functions had it as PET_LAYOUT).
    expect(readConfig({ PET_LAYOUT: 'upgrading' })).not.toHaveProperty('petLayout');
  });

  it('refuse a value they cannot read, rather than list nothing', () => {
    expect(() => readConfig({ LISTING_SETTLE_MS: 'abc' })).toThrow(
      'LISTING_SETTLE_MS "abc" is not a whole number of milliseconds from 0 to 99999',
    );
    expect(() => readConfig({ LISTING_SETTLE_MS: '-1' })).toThrow('LISTING_SETTLE_MS');
    expect(() => readConfig({ LISTING_SETTLE_MS: '1e3' })).toThrow('LISTING_SETTLE_MS');
    expect(() => readConfig({ FIRST_PAGE_CACHE: 'false' })).toThrow('FIRST_PAGE_CACHE "false" is not on or off');
    expect(() => readConfig({ FOUND_PET_CACHE: 'no' })).toThrow('FOUND_PET_CACHE "no" is not on or off');
    for (const unreadable of ['0', '3', 'two', ' 1'])
      expect(() => readConfig({ LISTING_SETS: unreadable })).toThrow(`LISTING_SETS "${unreadable}" is not 1 or 2`);
  });

  it("sign page cursors with Secrets Manager's key when CURSOR_SECRET_ARN is set, else with CURSOR_SECRET's: never both", () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor';
    const both = readConfig({ CURSOR_SECRET_ARN: arn, CURSOR_SECRET: 'now', CURSOR_SECRET_PREVIOUS: 'before' });
    expect(both.cursorSecretArn).toBe(arn);
    expect([both.cursorSecret, both.cursorSecretPrevious]).toEqual([undefined, undefined]);
    expect(readConfig({ CURSOR_SECRET: 'now', CURSOR_SECRET_PREVIOUS: 'before' })).toMatchObject({
      cursorSecretArn: undefined,
      cursorSecret: 'now',
      cursorSecretPrevious: 'before',
    });
    expect(readConfig({ CURSOR_SECRET_ARN: '', CURSOR_SECRET: 'now' })).toMatchObject({
      cursorSecretArn: undefined,
      cursorSecret: 'now',
    });
    // The type says so too: settings with both do not compile.
    const common = readConfig({});
    // @ts-expect-error: the ARN and the environment's key exclude each other
    const conflicting: Config = {
      ...common,
      cursorSecretArn: arn,
      cursorSecret: 'now',
      cursorSecretPrevious: undefined,
    };
    expect(conflicting.cursorSecretArn).toBe(arn);
  });

  it("read the sharded counters' threshold a minute, the default (30,000) when unset, and refuse anything but a whole number from 1", () => {
    expect(readConfig({}).rateShardThresholdPerMinute).toBeUndefined();
    expect(readConfig({ RATE_SHARD_THRESHOLD_PER_MINUTE: '' }).rateShardThresholdPerMinute).toBeUndefined();
    expect(readConfig({ RATE_SHARD_THRESHOLD_PER_MINUTE: '25' }).rateShardThresholdPerMinute).toBe(25);
    expect(readConfig({ RATE_SHARD_THRESHOLD_PER_MINUTE: '999999999' }).rateShardThresholdPerMinute).toBe(999_999_999);
    for (const unreadable of ['0', '-5', '1e3', '30,000', '1000000000', ' 25']) {
      expect(() => readConfig({ RATE_SHARD_THRESHOLD_PER_MINUTE: unreadable })).toThrow(
        `RATE_SHARD_THRESHOLD_PER_MINUTE "${unreadable}" is not a whole number of requests a minute from 1`,
      );
    }
  });
});
