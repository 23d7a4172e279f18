import { ServiceUnavailableError } from '../errors';

/** Answers that mean "too much traffic right now" (DynamoDB's, and API Gateway's management API's). */
const THROTTLING_ERRORS = new Set<unknown>([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);

/**
 * Failures of the connection or of the service itself, which a later retry may not meet; and a
 * transaction whose earlier attempt (same ClientRequestToken) DynamoDB is still running.
 */
const TRANSIENT_ERRORS = new Set<unknown>([
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'AbortError',
  'TransactionInProgressException',
]);

const NETWORK_ERROR_CODES = new Set<unknown>([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * What is read of an error, each field of any type: the sets above are of unknown, so a name or
 * code is looked up as it is, without a typeof check first (`has` is true for one of their
 * strings only, never for a value of another type).
 */
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

/** DynamoDB refused the request for its rate, without doing it: a write so refused was not written. */
export function isThrottling(error: unknown): boolean {
  return THROTTLING_ERRORS.has((error as SdkLikeError | undefined)?.name);
}

export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkLikeError;
  if (THROTTLING_ERRORS.has(name) || TRANSIENT_ERRORS.has(name)) return true;
  if (NETWORK_ERROR_CODES.has(code)) return true;
  const status = $metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}

interface ClientWithMiddleware {
  middlewareStack: { add: (middleware: never, options: { step: 'initialize'; name: string }) => void };
}

/**
 * After an AWS SDK client's own retries, a throttled or unreachable service becomes one typed
 * error (503) for every caller, instead of each caller classifying SDK errors itself.
 */
export function translateUnavailableErrors(client: ClientWithMiddleware): void {
  const middleware = (next: (args: unknown) => Promise<unknown>) =>
    async function translateUnavailable(args: unknown) {
      try {
        return await next(args);
      } catch (error) {
        throw toDatastoreError(error);
      }
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'translateUnavailableErrors' });
}
