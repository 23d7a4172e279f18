import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config, type Config } from '../config';
import { translateUnavailableErrors } from './datastore-errors';

/**
 * Time bounds for one AWS call, chosen so that the worst case (3 attempts, each up to
 * the request timeout, plus the SDK's backoff) stays well inside a 10 s Lambda timeout.
 */
export const CONNECTION_TIMEOUT_MS = 1_000;
export const REQUEST_TIMEOUT_MS = 2_000;
export const MAX_ATTEMPTS = 3;
/** The SDK's standard retry waits at most 100 ms × 2^n (full jitter) between attempts; its cap is far above. */
const MAX_BACKOFF_MS = 100 * (2 ** (MAX_ATTEMPTS - 1) - 1);
/** The longest one call can take, all attempts and waits included. */
export const WORST_CALL_MS = MAX_ATTEMPTS * (CONNECTION_TIMEOUT_MS + REQUEST_TIMEOUT_MS) + MAX_BACKOFF_MS;

export function createDocumentClient(settings: Pick<Config, 'region' | 'dynamoDbEndpoint'>): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: settings.region,
    maxAttempts: MAX_ATTEMPTS,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    ...(settings.dynamoDbEndpoint === undefined
      ? {}
      : {
          endpoint: settings.dynamoDbEndpoint,
          // DynamoDB Local accepts any credentials made of letters and digits only.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
  });
  translateUnavailableErrors(client);
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** One client per container, created outside the handlers. */
export const documentClient: DynamoDBDocumentClient = createDocumentClient(config);
