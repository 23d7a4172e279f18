/**
 * The errors a client can cause or meet, typed once at the base so any layer may throw them.
 * They carry no HTTP headers: the HTTP layer turns them into a response in exactly one place
 * (shared/http/middleware/error-response.ts).
 */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'not_found',
  'gone',
  'rate_limited',
  'key_suspended',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One failing field: `path` names where it is (`body.name`, `query.limit`, `path.petId`). */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/**
 * What an error answer tells the client. A thrown ApiError is one; a check that refuses a request
 * before the operation runs (401, 400) records one as a plain value instead: those are frequent
 * answers, and an Error object thrown across the middleware chain would be most of their cost.
 */
export interface ApiProblem {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: readonly ErrorDetail[] | undefined;
  /** Seconds a client should wait before retrying (409, 429, 503). */
  readonly retryAfterSeconds?: number | undefined;
}

/** The 400 of a request whose fields fail validation, as a plain value. */
export function invalidRequest(details: readonly ErrorDetail[]): ApiProblem {
  const named = boundedDetails(details);
  return { status: 400, code: 'invalid_request', message: describeDetails(named, details.length), details: named };
}

/**
 * An error answer stays a few KB whatever the request (decisions.md): it names at most this many
 * failing fields, then one entry says how many more fail; and it cuts what it repeats of the
 * request (a path can hold a client's field name of any length) to this many characters. Our own
 * messages are never cut: they are a few dozen characters each.
 */
export const MAX_NAMED_FIELDS = 20;
export const MAX_DETAIL_CHARACTERS = 100;
/** The `path` of the entry that counts the failing fields not named. */
export const MORE_FIELDS_PATH = '(more)';

function boundedDetails(details: readonly ErrorDetail[]): readonly ErrorDetail[] {
  // Always a fresh list of { path, message } (at most 21 small objects): returning the list as it
  // came when nothing needs cutting would answer the same, so there is no such shortcut.
  const named = details
    .slice(0, MAX_NAMED_FIELDS)
    .map((detail) => ({ path: clientText(detail.path), message: detail.message }));
  if (details.length > MAX_NAMED_FIELDS)
    named.push({ path: MORE_FIELDS_PATH, message: `${details.length - MAX_NAMED_FIELDS} more fields fail` });
  return named;
}

/**
 * Text a client sent, as an error answer may repeat it: at most MAX_DETAIL_CHARACTERS characters
 * as JSON writes them (a control character takes six), the last an ellipsis when cut, never half a
 * surrogate pair.
 */
export function clientText(text: string): string {
  if (text.length <= MAX_DETAIL_CHARACTERS && JSON.stringify(text).length - 2 <= MAX_DETAIL_CHARACTERS) return text;
  let kept = '';
  let size = 1; // the ellipsis
  for (const character of text) {
    size += JSON.stringify(character).length - 2;
    if (size > MAX_DETAIL_CHARACTERS) break;
    kept += character;
  }
  return `${kept}…`;
}

export class ApiError extends Error implements ApiProblem {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  /** Seconds a client should wait before retrying (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: { details?: readonly ErrorDetail[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    // A 4xx is an expected answer, not a fault: capturing its stack trace would be the costliest
    // part of answering it. 5xx errors keep theirs for the log.
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export class InvalidRequestError extends ApiError {
  constructor(details: readonly ErrorDetail[]) {
    const named = boundedDetails(details);
    super(400, 'invalid_request', describeDetails(named, details.length), { details: named });
    this.name = 'InvalidRequestError';
  }
}

/** `reason` tells whether a credential was sent at all (RFC 6750 adds error="invalid_token" then). */
export class UnauthorizedError extends ApiError {
  readonly reason: 'missing' | 'invalid';
  constructor(reason: 'missing' | 'invalid') {
    super(
      401,
      'unauthorized',
      reason === 'missing'
        ? 'An API key is required: send it as "Authorization: Bearer <key>".'
        : 'The API key is malformed, unknown or revoked.',
    );
    this.name = 'UnauthorizedError';
    this.reason = reason;
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super(404, 'not_found', message);
    this.name = 'NotFoundError';
  }
}

/** The datastore is throttling or out of reach; the client may retry after a short wait. */
export class ServiceUnavailableError extends ApiError {
  constructor(cause: unknown, retryAfterSeconds = 1) {
    super(503, 'service_unavailable', 'The service is temporarily unavailable; retry after the time in Retry-After.', {
      retryAfterSeconds,
      cause,
    });
    this.name = 'ServiceUnavailableError';
  }
}

/** The same `Idempotency-Key` is being written by another request right now; its outcome is not known yet. */
export class IdempotencyInProgressError extends ApiError {
  constructor(retryAfterSeconds = 1) {
    super(
      409,
      'idempotency_in_progress',
      'Another request with this Idempotency-Key is being processed; retry after the time in Retry-After to get its answer.',
      {
        retryAfterSeconds,
      },
    );
    this.name = 'IdempotencyInProgressError';
  }
}

/** The `Idempotency-Key` was used (within its 24 hours) for a request with another body. */
export class IdempotencyKeyReusedError extends ApiError {
  constructor() {
    super(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different body; send a new key for a new animal.',
    );
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** A per-minute or per-day limit is used up; `retryAfterSeconds` until that window resets. */
export class RateLimitedError extends ApiError {
  constructor(retryAfterSeconds: number, window: 'minute' | 'day') {
    super(
      429,
      'rate_limited',
      `The ${window === 'minute' ? 'per-minute' : 'daily'} request limit of this key is used up; retry after the time in Retry-After.`,
      {
        retryAfterSeconds,
      },
    );
    this.name = 'RateLimitedError';
  }
}

/** The key kept sending after it was refused and is suspended for a while. */
export class KeySuspendedError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(
      429,
      'key_suspended',
      'This key is temporarily suspended for sending too many requests after being rate limited; retry after the time in Retry-After.',
      {
        retryAfterSeconds,
      },
    );
    this.name = 'KeySuspendedError';
  }
}

/** Names the (bounded) failing fields, then how many more of `total` fail. */
function describeDetails(named: readonly ErrorDetail[], total: number): string {
  if (named.length === 0) return 'The request is invalid.';
  const listed = named.filter((detail) => detail.path !== MORE_FIELDS_PATH);
  const more = total > listed.length ? `; and ${total - listed.length} more` : '';
  return `The request is invalid: ${listed.map((d) => `${d.path}: ${d.message}`).join('; ')}${more}.`;
}
