import type { RateLimits } from './plans';

/**
 * How a key's requests are split over counter items. One item takes every counted request of its
 * key: a conditional write each, on one partition, which DynamoDB serves at about 1,000 write units
 * a second. A key whose plan allows more than SHARD_THRESHOLD_PER_MINUTE is counted on N items
 * (shards) instead, N chosen so that at its plan's full rate no shard takes more than half of its
 * partition's writes; each shard admits its share of the plan's limits, and the shares add up to
 * the limits exactly, so that the shards together never admit more than the plan allows
 * (docs/rate-limits-and-keys.md, "Keys above one partition").
 */

/** One partition's writes a second (an admitted request's count is one write unit). */
export const PARTITION_WRITES_PER_SECOND = 1_000;

/** Half a partition's writes, as a minute's requests: 500 a second, 30,000 a minute. */
export const SHARD_THRESHOLD_PER_MINUTE = (PARTITION_WRITES_PER_SECOND / 2) * 60;

/**
 * The most shards a key has: a suspension is written on the key's item and every shard in one
 * transaction, of 100 items at most. At the default threshold that is 2,970,000 requests a minute
 * (49,500 a second, past API Gateway's account rate); a plan above it puts more on each shard.
 */
export const MAX_SHARDS = 99;

/** The counter items of a key with these limits: one up to the threshold, else enough that none takes more than the threshold's rate (at most MAX_SHARDS). */
export function shardCountFor(limits: RateLimits, thresholdPerMinute: number): number {
  // A plan's limits are 1 or more: up to the threshold, that is 1.
  return Math.min(MAX_SHARDS, Math.ceil(limits.perMinute / thresholdPerMinute));
}

/** Shard `shard`'s part of `limit`: as even as whole numbers allow (the first `limit mod shards` take one more), adding up to `limit`. */
export function shareOf(limit: number, shards: number, shard: number): number {
  return Math.floor(limit / shards) + (shard < limit % shards ? 1 : 0);
}

/** Both windows' shares of a shard. */
export function sharesOf(limits: RateLimits, shards: number, shard: number): RateLimits {
  return { perMinute: shareOf(limits.perMinute, shards, shard), perDay: shareOf(limits.perDay, shards, shard) };
}

/**
 * The count a request of a sharded key is told, from the one shard that counted it (no request
 * reads the others): the limit less its shard's remaining times the shards, as if every shard had
 * as much left as its own. Exact for one shard.
 */
export function estimatedCount(limit: number, share: number, countOnShard: number, shards: number): number {
  return Math.max(0, limit - (share - countOnShard) * shards);
}
