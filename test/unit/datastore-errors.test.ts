import { describe, expect, it } from 'vitest';
import { isUnavailable, toDatastoreError } from '../../shared/dynamodb/datastore-errors';
import { ServiceUnavailableError } from '../../shared/errors';

const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

describe('datastore errors', () => {
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
});
