import { ServiceUnavailableError } from '../errors';

/** DynamoDB's answers that mean "too much traffic right now". */
const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** Failures of the connection or of the service itself, which a later retry may not meet. */
const TRANSIENT_ERRORS = new Set(['InternalServerError', 'ServiceUnavailable', 'TimeoutError', 'RequestTimeout', 'AbortError']);

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface SdkLikeError {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** Seconds to suggest in Retry-After when the datastore is throttling or unreachable. */
export const DATASTORE_RETRY_AFTER_SECONDS = 1;

/**
 * Turns a throttled or unreachable datastore into a 503 the client can retry; every other error
 * (a failed condition, a validation error from our own request) is passed through unchanged.
 */
export function toDatastoreError(error: unknown): unknown {
  return isUnavailable(error) ? new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS) : error;
}

export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkLikeError;
  if (typeof name === 'string' && (THROTTLING_ERRORS.has(name) || TRANSIENT_ERRORS.has(name))) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  const status = $metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}
