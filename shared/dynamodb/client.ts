import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config, type Config } from '../config';
import { isAwsEndpoint } from './aws-endpoint';
import { translateUnavailableErrors } from './datastore-errors';

/**
 * Time bounds for one AWS call. DynamoDB answers in milliseconds: 0.5 s to connect and 1 s to
 * answer are generous, and keep one call with all its attempts (7.5 s) inside the function's
 * 10 s. DynamoDB Local, a Java emulator on the developer's machine, can take seconds under load:
 * it gets four times as long, as does any endpoint named by DYNAMODB_ENDPOINT (AWS's included: from
 * a developer's machine it is farther than from a Lambda function).
 */
export interface CallBounds {
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

export const MAX_ATTEMPTS = 3;
export const AWS_CALL_BOUNDS: CallBounds = { connectionTimeoutMs: 500, requestTimeoutMs: 1_000 };
export const LOCAL_CALL_BOUNDS: CallBounds = { connectionTimeoutMs: 2_000, requestTimeoutMs: 4_000 };

/**
 * A client with an endpoint (DynamoDB Local, or DYNAMODB_ENDPOINT's) is meant to have at most this
 * many calls in flight, in a pool of twice as many sockets. The SDK starts a call's timers before
 * its pool has a socket for it, so a call that waits for one spends its bounds waiting: the local
 * server, which runs every function on one client, queues the calls beyond this number before the
 * SDK's timers start (local/dynamodb-socket-queue.ts; the number:
 * docs/testing.md#many-requests-at-once), and the pool also holds the sockets of failed calls,
 * which it counts until they are closed, so that no call waits in it. In AWS the SDK's own pool
 * (50) stays: an instance serves one request at a time, a handful of calls.
 */
export const LOCAL_CALLS_IN_FLIGHT = 32;

/**
 * The SDK's standard retry waits up to base × 2^retry (full jitter) before retry 1, 2, ...; the
 * base is 500 ms after throttling (100 ms otherwise).
 */
function maxBackoffMs(attempts: number): number {
  return Array.from({ length: attempts - 1 }, (_, retry) => 500 * 2 ** (retry + 1)).reduce(
    (sum, wait) => sum + wait,
    0,
  );
}

/** The longest one call can take, all attempts, timeouts and waits included. */
export function worstCallMs(bounds: CallBounds, attempts: number = MAX_ATTEMPTS): number {
  return attempts * (bounds.connectionTimeoutMs + bounds.requestTimeoutMs) + maxBackoffMs(attempts);
}

export function callBoundsFor(settings: Pick<Config, 'dynamoDbEndpoint'>): CallBounds {
  return settings.dynamoDbEndpoint === undefined ? AWS_CALL_BOUNDS : LOCAL_CALL_BOUNDS;
}

export type ClientSettings = Pick<Config, 'region' | 'dynamoDbEndpoint'> & Partial<Pick<Config, 'dynamoDbAccessKeyId'>>;

/**
 * The plain client, items in attribute values (./attribute-values.ts): what the operations' functions
 * use. The key registry reads and writes through the document client made on it (./document-client.ts).
 */
export function createDynamoDbClient(settings: ClientSettings): DynamoDBClient {
  const bounds = callBoundsFor(settings);
  const client = new DynamoDBClient({
    region: settings.region,
    maxAttempts: MAX_ATTEMPTS,
    // Without throwOnRequestTimeout the handler only logs when requestTimeout passes and waits on.
    requestHandler: {
      connectionTimeout: bounds.connectionTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      throwOnRequestTimeout: true,
      ...(settings.dynamoDbEndpoint === undefined ? {} : { httpAgent: { maxSockets: 2 * LOCAL_CALLS_IN_FLIGHT } }),
    },
    ...(settings.dynamoDbEndpoint === undefined ? {} : { endpoint: settings.dynamoDbEndpoint }),
    // DynamoDB Local accepts any credentials made of letters and digits only; the access key picks
    // the database unless it runs with -sharedDb (npm start's is its own). An endpoint of AWS's
    // own (npm start on a table in AWS) takes the usual credentials, as Lambda does.
    ...(settings.dynamoDbEndpoint === undefined || isAwsEndpoint(settings.dynamoDbEndpoint)
      ? {}
      : {
          credentials: {
            accessKeyId: settings.dynamoDbAccessKeyId ?? 'local',
            secretAccessKey: settings.dynamoDbAccessKeyId ?? 'local',
          },
        }),
  });
  translateUnavailableErrors(client);
  return client;
}

/** The longest call of this container's client. */
export const WORST_CALL_MS = worstCallMs(callBoundsFor(config));

/** One client per container, created outside the handlers. */
export const dynamoDbClient: DynamoDBClient = createDynamoDbClient(config);
