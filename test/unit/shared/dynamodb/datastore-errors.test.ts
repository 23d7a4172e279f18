import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DATASTORE_RETRY_AFTER_SECONDS,
  isThrottling,
  isUnavailable,
  toDatastoreError,
  translateUnavailableErrors,
} from '../../../../shared/dynamodb/datastore-errors';
import { ServiceUnavailableError } from '../../../../shared/errors';

const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });
const withCode = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

/** DynamoDB's throttling answers, and API Gateway's management API's. */
const THROTTLING_NAMES = [
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
];
/** The service's or the connection's failures, and a transaction DynamoDB is still running. */
const TRANSIENT_NAMES = [
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'AbortError',
  'TransactionInProgressException',
];
/** Node's codes of a connection that failed or could not be made. */
const NETWORK_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
];

function expectTranslatedTo503(error: unknown): void {
  const translated = toDatastoreError(error);
  expect(translated).toBeInstanceOf(ServiceUnavailableError);
  expect((translated as ServiceUnavailableError).status).toBe(503);
  expect((translated as ServiceUnavailableError).retryAfterSeconds).toBe(DATASTORE_RETRY_AFTER_SECONDS);
  expect((translated as ServiceUnavailableError).cause).toBe(error);
}

describe('datastore errors', () => {
  it('suggests a Retry-After of at least a second', () => {
    expect(DATASTORE_RETRY_AFTER_SECONDS).toBeGreaterThanOrEqual(1);
  });

  it.each([
    named('ProvisionedThroughputExceededException'),
    named('ThrottlingException'),
    named('RequestLimitExceeded'),
    named('InternalServerError'),
    named('TimeoutError'),
    named('AbortError'),
    Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    named('UnknownError', { $metadata: { httpStatusCode: 503 } }),
  ])('calls %s unavailable and turns it into a 503 with Retry-After', (error) => {
    expect(isUnavailable(error)).toBe(true);
    const translated = toDatastoreError(error);
    expect(translated).toBeInstanceOf(ServiceUnavailableError);
    expect((translated as ServiceUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it.each([
    named('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } }),
    named('ValidationException', { $metadata: { httpStatusCode: 400 } }),
    named('ResourceNotFoundException'),
    'a string',
    null,
  ])('passes %s through unchanged', (error) => {
    expect(toDatastoreError(error)).toBe(error);
  });

  it.each(THROTTLING_NAMES)('calls %s throttling, and unavailable: a 503 with Retry-After', (name) => {
    const error = named(name, { $metadata: { httpStatusCode: 400 } });
    expect(isThrottling(error)).toBe(true);
    expect(isUnavailable(error)).toBe(true);
    expectTranslatedTo503(error);
  });

  it.each(TRANSIENT_NAMES)('calls %s unavailable (a 503 with Retry-After), but not throttling', (name) => {
    const error = named(name);
    expect(isThrottling(error)).toBe(false);
    expect(isUnavailable(error)).toBe(true);
    expectTranslatedTo503(error);
  });

  it.each(NETWORK_CODES)(
    'calls a connection failure with code %s unavailable (a 503 with Retry-After), but not throttling',
    (code) => {
      const error = withCode(code);
      expect(isThrottling(error)).toBe(false);
      expect(isUnavailable(error)).toBe(true);
      expectTranslatedTo503(error);
    },
  );

  it.each([500, 502, 503, 504, 599])(
    'calls an unknown error with HTTP status %i unavailable, but not throttling',
    (status) => {
      const error = named('UnknownError', { $metadata: { httpStatusCode: status } });
      expect(isThrottling(error)).toBe(false);
      expect(isUnavailable(error)).toBe(true);
      expectTranslatedTo503(error);
    },
  );

  it.each([
    ['HTTP status 499', named('UnknownError', { $metadata: { httpStatusCode: 499 } })],
    ['HTTP status 400', named('UnknownError', { $metadata: { httpStatusCode: 400 } })],
    ['an HTTP status that is not a number', named('UnknownError', { $metadata: { httpStatusCode: '503' } })],
    ['no HTTP status', named('UnknownError', { $metadata: {} })],
    ['a name that is not one of them', named('ValidationException')],
    ['a name that only starts like one', named('Throttling')],
    ['a name in another case', named('throttlingexception')],
    [
      'the transaction cancelled (its reasons are judged elsewhere)',
      named('TransactionCanceledException', { $metadata: { httpStatusCode: 400 } }),
    ],
    ['a name that is not a string', { name: 503 }],
    ['a name that is a String object', { name: new String('ThrottlingException') }],
    ['a code that is not a network failure', withCode('EACCES')],
    ['a code that is not a string', { code: 104 }],
    ['a string', 'ThrottlingException'],
    ['a number', 503],
    ['undefined', undefined],
    ['null', null],
  ])('calls an error with %s neither throttling nor unavailable, and passes it through unchanged', (_, error) => {
    expect(isThrottling(error)).toBe(false);
    expect(isUnavailable(error)).toBe(false);
    expect(toDatastoreError(error)).toBe(error);
  });
});

describe('the translation on an AWS SDK client', () => {
  /** A client that sends nothing: its build step (after serialize, before the retries and the request) throws `error`. */
  function clientThrowing(error: unknown): DynamoDBClient {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
    });
    client.middlewareStack.add(
      () => async () => {
        throw error;
      },
      { step: 'build', name: 'throwForTest' },
    );
    return client;
  }
  const getItem = new GetItemCommand({ TableName: 'pets', Key: { id: { S: '1' } } });

  it('is one middleware of the initialize step, named translateUnavailableErrors (so the first to see every error)', () => {
    const client = new DynamoDBClient({ region: 'us-east-1' });
    expect(client.middlewareStack.identify()).not.toContain('translateUnavailableErrors - initialize');
    translateUnavailableErrors(client);
    expect(
      client.middlewareStack.identify().filter((entry) => entry.startsWith('translateUnavailableErrors ')),
    ).toEqual(['translateUnavailableErrors - initialize']);
    expect(client.middlewareStack.remove('translateUnavailableErrors')).toBe(true);
  });

  it("turns an unavailable datastore's error from a later step into a 503 with Retry-After", async () => {
    const error = named('ThrottlingException');
    await expect(clientThrowing(error).send(getItem)).rejects.toBe(error); // the client alone
    const client = clientThrowing(error);
    translateUnavailableErrors(client);
    const thrown: unknown = await client.send(getItem).catch((reason: unknown) => reason);
    expect(thrown).toBeInstanceOf(ServiceUnavailableError);
    expect((thrown as ServiceUnavailableError).status).toBe(503);
    expect((thrown as ServiceUnavailableError).cause).toBe(error);
    expect((thrown as ServiceUnavailableError).retryAfterSeconds).toBe(DATASTORE_RETRY_AFTER_SECONDS);
  });

  it('passes any other error from a later step through unchanged', async () => {
    const error = named('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } });
    const client = clientThrowing(error);
    translateUnavailableErrors(client);
    await expect(client.send(getItem)).rejects.toBe(error);
  });
});
