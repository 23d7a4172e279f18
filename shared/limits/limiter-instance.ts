import { now } from '../clock';
import { config } from '../config';
import { dynamoDbClient } from '../dynamodb/client';
import { DynamoDbRateCounterStore } from './counter-store';
import { RateLimiter } from './rate-limiter';

/** The limiter the handlers use: counters in the service's table, created once per container. */
export const rateLimiter = new RateLimiter(
  new DynamoDbRateCounterStore(dynamoDbClient, config.tableName, {
    shardThresholdPerMinute: config.rateShardThresholdPerMinute,
  }),
  now,
);
