import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  clientText,
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
  InvalidRequestError,
  invalidRequest,
  KeySuspendedError,
  MAX_DETAIL_CHARACTERS,
  MAX_NAMED_FIELDS,
  MORE_FIELDS_PATH,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  type ErrorDetail,
} from '../../../shared/errors';

/**
 * The errors a client can meet, on their own: what each tells the client (status, code, exact
 * message, details, Retry-After) and what it keeps for the log (name, cause, stack trace). The
 * HTTP tests hold the same answers through the served API; these pin each rule to its class.
 */

const fields = (count: number): ErrorDetail[] =>
  Array.from({ length: count }, (_, i) => ({ path: `body.f${i + 1}`, message: 'is required' }));
const listed = (count: number): string =>
  fields(count)
    .map((d) => `${d.path}: ${d.message}`)
    .join('; ');

describe('the limits of an error answer (decisions.md: the first 20 fields, then how many more; client text cut at 100 characters)', () => {
  it('are 20 named fields and 100 characters', () => {
    expect(MAX_NAMED_FIELDS).toBe(20);
    expect(MAX_DETAIL_CHARACTERS).toBe(100);
    expect(MORE_FIELDS_PATH).toBe('(more)');
  });
});

describe('clientText', () => {
  it('keeps a text of exactly 100 characters as it is', () => {
    const text = 'a'.repeat(MAX_DETAIL_CHARACTERS);
    expect(clientText(text)).toBe(text);
  });

  it('keeps a short text, and one whose JSON escapes still fit (a newline takes two)', () => {
    expect(clientText('body.name')).toBe('body.name');
    const text = `${'a'.repeat(MAX_DETAIL_CHARACTERS - 2)}\n`; // 100 characters in JSON
    expect(clientText(text)).toBe(text);
    expect(clientText('')).toBe('');
  });

  it('cuts a text of one more (101) to 99 characters and an ellipsis: 100 in all', () => {
    const cut = clientText('a'.repeat(MAX_DETAIL_CHARACTERS + 1));
    expect(cut).toBe(`${'a'.repeat(MAX_DETAIL_CHARACTERS - 1)}…`);
    expect(cut).toHaveLength(MAX_DETAIL_CHARACTERS);
  });

  it('cuts a text of 100 characters whose JSON escape crosses 100 (a newline is two, a control character six)', () => {
    expect(clientText(`${'a'.repeat(MAX_DETAIL_CHARACTERS - 1)}\n`)).toBe(`${'a'.repeat(MAX_DETAIL_CHARACTERS - 1)}…`);
    expect(clientText(`${'a'.repeat(90)}\u0001${'b'.repeat(9)}`)).toBe(`${'a'.repeat(90)}\u0001${'b'.repeat(3)}…`);
    expect(clientText(`\u0001${'a'.repeat(MAX_DETAIL_CHARACTERS - 1)}`)).toBe(
      `\u0001${'a'.repeat(MAX_DETAIL_CHARACTERS - 7)}…`,
    );
  });

  it('counts a text as JSON writes it: 98 characters that need no escape are kept, 2 characters short of the limit', () => {
    const text = 'a'.repeat(MAX_DETAIL_CHARACTERS - 2);
    expect(clientText(text)).toBe(text);
  });

  it('never keeps half a surrogate pair', () => {
    expect(clientText(`${'a'.repeat(98)}😀b`)).toBe(`${'a'.repeat(98)}…`);
    expect(clientText(`${'a'.repeat(97)}😀bb`)).toBe(`${'a'.repeat(97)}😀…`);
  });
});

describe('an invalid request (400)', () => {
  for (const [name, make] of [
    ['invalidRequest', (details: readonly ErrorDetail[]) => invalidRequest(details)],
    ['InvalidRequestError', (details: readonly ErrorDetail[]) => new InvalidRequestError(details)],
  ] as const) {
    describe(name, () => {
      it('names the one failing field and its reason', () => {
        const problem = make([{ path: 'body.name', message: 'is required' }]);
        expect(problem).toMatchObject({
          status: 400,
          code: 'invalid_request',
          message: 'The request is invalid: body.name: is required.',
        });
        expect(problem.details).toStrictEqual([{ path: 'body.name', message: 'is required' }]);
        expect(problem.retryAfterSeconds).toBeUndefined();
      });

      it('with no named field: "The request is invalid." and no details', () => {
        const problem = make([]);
        expect(problem.message).toBe('The request is invalid.');
        expect(problem.details).toStrictEqual([]);
      });

      it('names exactly 20 fields without saying "more"', () => {
        const problem = make(fields(MAX_NAMED_FIELDS));
        expect(problem.message).toBe(`The request is invalid: ${listed(MAX_NAMED_FIELDS)}.`);
        expect(problem.details).toStrictEqual(fields(MAX_NAMED_FIELDS));
      });

      it('of 21 fields names 20, then says one more fails', () => {
        const problem = make(fields(MAX_NAMED_FIELDS + 1));
        expect(problem.message).toBe(`The request is invalid: ${listed(MAX_NAMED_FIELDS)}; and 1 more.`);
        expect(problem.details).toStrictEqual([
          ...fields(MAX_NAMED_FIELDS),
          { path: MORE_FIELDS_PATH, message: '1 more fields fail' },
        ]);
      });

      it('of 45 fields names 20, then says 25 more fail', () => {
        const problem = make(fields(45));
        expect(problem.message).toBe(`The request is invalid: ${listed(MAX_NAMED_FIELDS)}; and 25 more.`);
        expect(problem.details).toHaveLength(MAX_NAMED_FIELDS + 1);
        expect(problem.details?.at(-1)).toStrictEqual({ path: MORE_FIELDS_PATH, message: '25 more fields fail' });
      });

      it('cuts a path that is a client\'s text, in the details and the message, and adds no "more" for 20 or fewer', () => {
        const long = `body.${'x'.repeat(200)}`;
        const cut = `body.${'x'.repeat(MAX_DETAIL_CHARACTERS - 6)}…`;
        const details = [
          { path: 'body.name', message: 'is required' },
          ...fields(MAX_NAMED_FIELDS - 2),
          { path: long, message: 'is not a known field' },
        ];
        const problem = make(details);
        expect(problem.details).toStrictEqual([
          ...details.slice(0, -1),
          { path: cut, message: 'is not a known field' },
        ]);
        expect(problem.message).toBe(
          `The request is invalid: body.name: is required; ${listed(MAX_NAMED_FIELDS - 2)}; ${cut}: is not a known field.`,
        );
        expect(problem.message).not.toContain(long);
      });

      it('cuts the one path of a single field too; our own messages are never cut', () => {
        const message = 'm'.repeat(MAX_DETAIL_CHARACTERS * 2);
        const problem = make([{ path: 'a'.repeat(150), message }]);
        expect(problem.details).toStrictEqual([{ path: `${'a'.repeat(MAX_DETAIL_CHARACTERS - 1)}…`, message }]);
      });

      it('keeps only path and message of each detail', () => {
        const problem = make([{ path: 'query.limit', message: 'is too big', extra: 'x' } as ErrorDetail]);
        expect(problem.details).toStrictEqual([{ path: 'query.limit', message: 'is too big' }]);
      });
    });
  }

  it('as an error: InvalidRequestError, an ApiError', () => {
    const error = new InvalidRequestError([{ path: 'body.name', message: 'is required' }]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidRequestError');
    expect(Object.hasOwn(error, 'cause')).toBe(false);
  });
});

describe('ApiError', () => {
  it('carries its status, code, message, details and retry time as given, named ApiError', () => {
    const details = [{ path: 'body.name', message: 'is required' }];
    const error = new ApiError(400, 'invalid_request', 'The request is invalid.', { details, retryAfterSeconds: 3 });
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 400,
      code: 'invalid_request',
      message: 'The request is invalid.',
      retryAfterSeconds: 3,
    });
    expect(error.details).toBe(details);
    const bare = new ApiError(404, 'not_found', 'none');
    expect(bare.details).toBeUndefined();
    expect(bare.retryAfterSeconds).toBeUndefined();
  });

  it('keeps a cause only when one is given', () => {
    const cause = new Error('the datastore timed out');
    const withCause = new ApiError(503, 'service_unavailable', 'later', { cause });
    expect(Object.hasOwn(withCause, 'cause')).toBe(true);
    expect(withCause.cause).toBe(cause);
    expect(Object.hasOwn(new ApiError(503, 'service_unavailable', 'later'), 'cause')).toBe(false);
    expect(Object.hasOwn(new ApiError(503, 'service_unavailable', 'later', { cause: undefined }), 'cause')).toBe(false);
    // A cause that is not an Error is kept as well (only undefined means none).
    expect(new ApiError(500, 'internal_error', 'oops', { cause: null }).cause).toBeNull();
  });

  describe('its stack trace: none for a 4xx (an expected answer), kept for a 5xx (for the log)', () => {
    let limit: number;
    beforeEach(() => {
      limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 7;
    });
    afterEach(() => {
      Error.stackTraceLimit = limit;
    });

    const frames = (error: Error): number =>
      (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;

    it('a 4xx is made with Error.stackTraceLimit at 0, and the limit is put back exactly', () => {
      for (const status of [400, 401, 404, 429, 499]) {
        const error = new ApiError(status, 'invalid_request', 'refused');
        expect(frames(error), `status ${status}`).toBe(0);
        expect(Error.stackTraceLimit).toBe(7);
      }
      expect(frames(new UnauthorizedError('missing'))).toBe(0);
      expect(frames(new RateLimitedError(1, 'minute'))).toBe(0);
      expect(Error.stackTraceLimit).toBe(7);
    });

    it('a 5xx keeps its frames (500 included), and the limit is left as it was', () => {
      for (const status of [500, 503]) {
        const error = new ApiError(status, 'internal_error', 'failed');
        expect(frames(error), `status ${status}`).toBeGreaterThan(0);
        expect(Error.stackTraceLimit).toBe(7);
      }
      expect(frames(new ServiceUnavailableError(undefined))).toBeGreaterThan(0);
      expect(Error.stackTraceLimit).toBe(7);
    });
  });
});

describe('UnauthorizedError (401)', () => {
  it('missing: says how to send a key', () => {
    const error = new UnauthorizedError('missing');
    expect(error).toMatchObject({ name: 'UnauthorizedError', status: 401, code: 'unauthorized', reason: 'missing' });
    expect(error.message).toBe('An API key is required: send it as "Authorization: Bearer <key>".');
  });

  it('invalid: says the key is not usable', () => {
    const error = new UnauthorizedError('invalid');
    expect(error).toMatchObject({ name: 'UnauthorizedError', status: 401, code: 'unauthorized', reason: 'invalid' });
    expect(error.message).toBe('The API key is malformed, unknown or revoked.');
  });

  it('carries no retry time, details or cause', () => {
    const error = new UnauthorizedError('invalid');
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(error.details).toBeUndefined();
    expect(Object.hasOwn(error, 'cause')).toBe(false);
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('NotFoundError (404)', () => {
  it('carries the message it is given', () => {
    const error = new NotFoundError('No pet with id 7.');
    expect(error).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      code: 'not_found',
      message: 'No pet with id 7.',
    });
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('ServiceUnavailableError (503)', () => {
  it('tells the client to retry after 1 second unless told otherwise, and keeps its cause for the log', () => {
    const cause = new Error('ProvisionedThroughputExceededException');
    const error = new ServiceUnavailableError(cause);
    expect(error).toMatchObject({
      name: 'ServiceUnavailableError',
      status: 503,
      code: 'service_unavailable',
      retryAfterSeconds: 1,
    });
    expect(error.message).toBe('The service is temporarily unavailable; retry after the time in Retry-After.');
    expect(error.cause).toBe(cause);
    expect(new ServiceUnavailableError(cause, 4).retryAfterSeconds).toBe(4);
    expect(Object.hasOwn(new ServiceUnavailableError(undefined), 'cause')).toBe(false);
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('IdempotencyInProgressError (409)', () => {
  it('tells the client to retry after 1 second unless told otherwise', () => {
    const error = new IdempotencyInProgressError();
    expect(error).toMatchObject({
      name: 'IdempotencyInProgressError',
      status: 409,
      code: 'idempotency_in_progress',
      retryAfterSeconds: 1,
    });
    expect(error.message).toBe(
      'Another request with this Idempotency-Key is being processed; retry after the time in Retry-After to get its answer.',
    );
    expect(new IdempotencyInProgressError(3).retryAfterSeconds).toBe(3);
    expect(error.details).toBeUndefined();
    expect(Object.hasOwn(error, 'cause')).toBe(false);
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('IdempotencyKeyReusedError (422)', () => {
  it('asks for a new key', () => {
    const error = new IdempotencyKeyReusedError();
    expect(error).toMatchObject({ name: 'IdempotencyKeyReusedError', status: 422, code: 'idempotency_key_reused' });
    expect(error.message).toBe(
      'This Idempotency-Key was already used with a different body; send a new key for a new animal.',
    );
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('RateLimitedError (429)', () => {
  it('names the per-minute window', () => {
    const error = new RateLimitedError(17, 'minute');
    expect(error).toMatchObject({ name: 'RateLimitedError', status: 429, code: 'rate_limited', retryAfterSeconds: 17 });
    expect(error.message).toBe(
      'The per-minute request limit of this key is used up; retry after the time in Retry-After.',
    );
  });

  it('names the daily window', () => {
    const error = new RateLimitedError(3600, 'day');
    expect(error).toMatchObject({
      name: 'RateLimitedError',
      status: 429,
      code: 'rate_limited',
      retryAfterSeconds: 3600,
    });
    expect(error.message).toBe('The daily request limit of this key is used up; retry after the time in Retry-After.');
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('KeySuspendedError (429)', () => {
  it('says the key is suspended, with its retry time', () => {
    const error = new KeySuspendedError(900);
    expect(error).toMatchObject({
      name: 'KeySuspendedError',
      status: 429,
      code: 'key_suspended',
      retryAfterSeconds: 900,
    });
    expect(error.message).toBe(
      'This key is temporarily suspended for sending too many requests after being rate limited; retry after the time in Retry-After.',
    );
    expect(error).toBeInstanceOf(ApiError);
  });
});
