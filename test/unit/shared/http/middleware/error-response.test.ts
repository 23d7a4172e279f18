import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  IdempotencyInProgressError,
  InvalidRequestError,
  invalidRequest,
  KeySuspendedError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  type ApiProblem,
} from '../../../../../shared/errors';
import {
  answerProblem,
  BEARER_REALM,
  errorResponse,
  internalErrorResponse,
  toErrorResponse,
} from '../../../../../shared/http/middleware/error-response';
import type { HttpContext } from '../../../../../shared/http/request-context';

/**
 * The error shaping on its own: the one place where whatever was thrown becomes a response. What
 * the middleware answers (and notes on the request for its log line), what toErrorResponse and
 * answerProblem answer, with exact status, headers and body. The contract (decisions.md): the Error
 * body is `{ code, message, status, details? }`, `details` only when some field failed; Retry-After
 * is a whole number of seconds, at least 1; a 401 carries WWW-Authenticate as RFC 6750 has it; an
 * error that is not an ApiError is a 500 `internal_error` whose message names only the request id.
 */

const requestId = 'c0ffee00-1234-4bcd-8ef0-0123456789ab';
const json = { 'Content-Type': 'application/json' };

function freshState(): HttpContext['petStore'] {
  return { operationId: 'listPets', requestId, startedAt: 0, deadline: undefined } as HttpContext['petStore'];
}

/** Runs the middleware's onError on a request built by hand, as middy would after a throw. */
function onError(error: unknown, response?: APIGatewayProxyResult) {
  const petStore = freshState();
  const request = {
    event: { headers: {} } as APIGatewayProxyEvent,
    context: { petStore },
    response,
    error,
    internal: {},
  };
  const handler = errorResponse().onError as (request: unknown) => void;
  const returned = handler(request);
  return { returned, response: request.response as APIGatewayProxyResult | undefined, state: petStore };
}

/** A response with its body parsed, to compare with toStrictEqual. */
function parsed(response: APIGatewayProxyResult | undefined) {
  expect(response).toBeDefined();
  const { statusCode, headers, body, ...rest } = response as APIGatewayProxyResult;
  return { statusCode, headers, body: JSON.parse(body) as unknown, rest };
}

const internalError = {
  statusCode: 500,
  headers: json,
  body: {
    code: 'internal_error',
    message: `An unexpected error occurred. If it persists, report request id ${requestId}.`,
    status: 500,
  },
  rest: {},
};

describe('errorResponse', () => {
  it('is a middleware that runs on errors, and only then', () => {
    const middleware = errorResponse();
    expect(Object.keys(middleware)).toStrictEqual(['onError']);
    expect(typeof middleware.onError).toBe('function');
  });

  it('answers an ApiError with its status, code and message, and notes the error and the problem on the request', () => {
    const error = new NotFoundError('No pet has the id p1.');
    const { returned, response, state } = onError(error);
    expect(returned).toBeUndefined();
    expect(parsed(response)).toStrictEqual({
      statusCode: 404,
      headers: json,
      body: { code: 'not_found', message: 'No pet has the id p1.', status: 404 },
      rest: {},
    });
    expect(state.failure).toBe(error);
    expect(state.problem).toBe(error);
  });

  it('answers anything else with a 500 naming only the request id (never the cause), and notes the error but no problem', () => {
    const error = new Error('secret: table pets-prod is missing');
    const { response, state } = onError(error);
    expect(parsed(response)).toStrictEqual(internalError);
    expect(response?.body).not.toContain('secret');
    expect(state.failure).toBe(error);
    expect(state.problem).toBeUndefined();
  });

  it('a thrown value that is not an Error at all is a 500 too', () => {
    const { response, state } = onError('a string');
    expect(parsed(response)).toStrictEqual(internalError);
    expect(state.failure).toBe('a string');
    expect(state.problem).toBeUndefined();
  });

  it('an ApiError with a cause tells the client nothing of the cause', () => {
    const error = new ServiceUnavailableError(new Error('ProvisionedThroughputExceededException'), 2);
    const { response, state } = onError(error);
    expect(parsed(response)).toStrictEqual({
      statusCode: 503,
      headers: { ...json, 'Retry-After': '2' },
      body: {
        code: 'service_unavailable',
        message: 'The service is temporarily unavailable; retry after the time in Retry-After.',
        status: 503,
      },
      rest: {},
    });
    expect(state.failure).toBe(error);
    expect(state.problem).toBe(error);
  });

  it('leaves a response already set alone (an ApiError or not), and notes nothing', () => {
    for (const error of [new NotFoundError('No pet has the id p1.'), new Error('boom')]) {
      const already: APIGatewayProxyResult = { statusCode: 418, headers: { 'X-Already': 'yes' }, body: 'teapot' };
      const { response, state } = onError(error, already);
      expect(response).toBe(already);
      expect(response).toStrictEqual({ statusCode: 418, headers: { 'X-Already': 'yes' }, body: 'teapot' });
      expect(state.failure).toBeUndefined();
      expect(state.problem).toBeUndefined();
    }
  });

  it('answers a 401 with its WWW-Authenticate challenge', () => {
    const error = new UnauthorizedError('invalid');
    const { response, state } = onError(error);
    expect(parsed(response)).toStrictEqual({
      statusCode: 401,
      headers: { ...json, 'WWW-Authenticate': 'Bearer realm="petstore", error="invalid_token"' },
      body: { code: 'unauthorized', message: 'The API key is malformed, unknown or revoked.', status: 401 },
      rest: {},
    });
    expect(state.failure).toBe(error);
    expect(state.problem).toBe(error);
  });

  it('answers a 400 with its details', () => {
    const error = new InvalidRequestError([{ path: 'body.name', message: 'is required' }]);
    const { response, state } = onError(error);
    expect(parsed(response)).toStrictEqual({
      statusCode: 400,
      headers: json,
      body: {
        code: 'invalid_request',
        message: 'The request is invalid: body.name: is required.',
        status: 400,
        details: [{ path: 'body.name', message: 'is required' }],
      },
      rest: {},
    });
    expect(state.problem).toBe(error);
  });
});

describe('toErrorResponse', () => {
  it('answers an ApiError with its response', () => {
    expect(parsed(toErrorResponse(new NotFoundError('No document answers /nowhere.'), requestId))).toStrictEqual({
      statusCode: 404,
      headers: json,
      body: { code: 'not_found', message: 'No document answers /nowhere.', status: 404 },
      rest: {},
    });
    expect(parsed(toErrorResponse(new UnauthorizedError('missing'), requestId))).toStrictEqual({
      statusCode: 401,
      headers: { ...json, 'WWW-Authenticate': 'Bearer realm="petstore"' },
      body: {
        code: 'unauthorized',
        message: 'An API key is required: send it as "Authorization: Bearer <key>".',
        status: 401,
      },
      rest: {},
    });
  });

  it('answers anything else with the 500 of the request id', () => {
    expect(parsed(toErrorResponse(new Error('secret cause'), requestId))).toStrictEqual(internalError);
    expect(parsed(toErrorResponse(undefined, requestId))).toStrictEqual(internalError);
    expect(toErrorResponse(new TypeError('x'), 'r-2')).toStrictEqual({
      statusCode: 500,
      headers: { 'Content-Type': 'application/json' },
      body: '{"code":"internal_error","message":"An unexpected error occurred. If it persists, report request id r-2.","status":500}',
    });
  });
});

describe('internalErrorResponse', () => {
  it('is the exact 500 of the request id', () => {
    expect(internalErrorResponse('r-1')).toStrictEqual({
      statusCode: 500,
      headers: { 'Content-Type': 'application/json' },
      body: '{"code":"internal_error","message":"An unexpected error occurred. If it persists, report request id r-1.","status":500}',
    });
    expect(parsed(internalErrorResponse(requestId))).toStrictEqual(internalError);
  });
});

describe('answerProblem', () => {
  it('notes the problem on the request and answers it: a plain value as well as an ApiError', () => {
    const state = freshState();
    const problem = invalidRequest([{ path: 'query.limit', message: 'must be at most 100' }]);
    expect(problem).not.toBeInstanceOf(ApiError);
    const response = answerProblem(state, problem);
    expect(state.problem).toBe(problem);
    expect(state.failure).toBeUndefined();
    expect(parsed(response)).toStrictEqual({
      statusCode: 400,
      headers: json,
      body: {
        code: 'invalid_request',
        message: 'The request is invalid: query.limit: must be at most 100.',
        status: 400,
        details: [{ path: 'query.limit', message: 'must be at most 100' }],
      },
      rest: {},
    });
  });

  it('a 401 refusal (an UnauthorizedError) carries its challenge', () => {
    const state = freshState();
    const refusal = new UnauthorizedError('missing');
    expect(parsed(answerProblem(state, refusal)).headers).toStrictEqual({
      ...json,
      'WWW-Authenticate': 'Bearer realm="petstore"',
    });
    expect(state.problem).toBe(refusal);
  });
});

describe('the Error body', () => {
  const answer = (problem: ApiProblem) => parsed(answerProblem(freshState(), problem));

  it('has details only when some field failed: none, or an empty list, is no `details` member', () => {
    expect(answer({ status: 400, code: 'invalid_request', message: 'Bad.' }).body).toStrictEqual({
      code: 'invalid_request',
      message: 'Bad.',
      status: 400,
    });
    expect(answer({ status: 400, code: 'invalid_request', message: 'Bad.', details: undefined }).body).toStrictEqual({
      code: 'invalid_request',
      message: 'Bad.',
      status: 400,
    });
    expect(answer({ status: 400, code: 'invalid_request', message: 'Bad.', details: [] }).body).toStrictEqual({
      code: 'invalid_request',
      message: 'Bad.',
      status: 400,
    });
    expect(answer(invalidRequest([])).body).toStrictEqual({
      code: 'invalid_request',
      message: 'The request is invalid.',
      status: 400,
    });
    expect(answer(new InvalidRequestError([])).body).toStrictEqual({
      code: 'invalid_request',
      message: 'The request is invalid.',
      status: 400,
    });
    expect(answer(new ApiError(400, 'invalid_request', 'Bad.', { details: [] })).body).toStrictEqual({
      code: 'invalid_request',
      message: 'Bad.',
      status: 400,
    });
  });

  it('lists every failing field, in order, as the problem has them', () => {
    const details = [
      { path: 'body.name', message: 'is required' },
      { path: 'body.tag', message: 'must be a string' },
    ];
    const body = answer({ status: 400, code: 'invalid_request', message: 'Bad.', details }).body as {
      details: unknown;
    };
    expect(body).toStrictEqual({ code: 'invalid_request', message: 'Bad.', status: 400, details });
    expect(body.details).not.toBe(details);
    // One field is enough to be listed.
    expect(
      answer({
        status: 400,
        code: 'invalid_request',
        message: 'Bad.',
        details: [{ path: 'path.petId', message: 'is not an id' }],
      }).body,
    ).toStrictEqual({
      code: 'invalid_request',
      message: 'Bad.',
      status: 400,
      details: [{ path: 'path.petId', message: 'is not an id' }],
    });
  });

  it('repeats the status of the problem', () => {
    expect(answer(new IdempotencyInProgressError(5))).toStrictEqual({
      statusCode: 409,
      headers: { ...json, 'Retry-After': '5' },
      body: {
        code: 'idempotency_in_progress',
        message:
          'Another request with this Idempotency-Key is being processed; retry after the time in Retry-After to get its answer.',
        status: 409,
      },
      rest: {},
    });
  });
});

describe('Retry-After', () => {
  const retryAfter = (retryAfterSeconds: number | undefined) =>
    parsed(answerProblem(freshState(), { status: 429, code: 'rate_limited', message: 'Slow down.', retryAfterSeconds }))
      .headers;

  it('is a whole number of seconds, rounded up, and at least 1', () => {
    expect(retryAfter(0.2)).toStrictEqual({ ...json, 'Retry-After': '1' });
    expect(retryAfter(1)).toStrictEqual({ ...json, 'Retry-After': '1' });
    expect(retryAfter(1.5)).toStrictEqual({ ...json, 'Retry-After': '2' });
    expect(retryAfter(3)).toStrictEqual({ ...json, 'Retry-After': '3' });
    expect(retryAfter(59.01)).toStrictEqual({ ...json, 'Retry-After': '60' });
    expect(retryAfter(0)).toStrictEqual({ ...json, 'Retry-After': '1' });
    expect(retryAfter(-4)).toStrictEqual({ ...json, 'Retry-After': '1' });
  });

  it('is not sent when the problem has no wait', () => {
    expect(retryAfter(undefined)).toStrictEqual(json);
    expect(
      parsed(answerProblem(freshState(), { status: 429, code: 'rate_limited', message: 'Slow down.' })).headers,
    ).toStrictEqual(json);
    expect(parsed(toErrorResponse(new NotFoundError('No pet.'), requestId)).headers).toStrictEqual(json);
  });

  it('comes with each error that has a wait', () => {
    expect(parsed(toErrorResponse(new RateLimitedError(48, 'minute'), requestId)).headers).toStrictEqual({
      ...json,
      'Retry-After': '48',
    });
    expect(parsed(toErrorResponse(new KeySuspendedError(600), requestId)).headers).toStrictEqual({
      ...json,
      'Retry-After': '600',
    });
    expect(parsed(toErrorResponse(new ServiceUnavailableError(undefined), requestId)).headers).toStrictEqual({
      ...json,
      'Retry-After': '1',
    });
  });
});

describe('WWW-Authenticate (RFC 6750 section 3)', () => {
  it('names the realm only when no credential was sent', () => {
    expect(BEARER_REALM).toBe('petstore');
    expect(parsed(toErrorResponse(new UnauthorizedError('missing'), requestId)).headers).toStrictEqual({
      ...json,
      'WWW-Authenticate': 'Bearer realm="petstore"',
    });
  });

  it('adds error="invalid_token" when a credential was sent and refused', () => {
    expect(parsed(toErrorResponse(new UnauthorizedError('invalid'), requestId)).headers).toStrictEqual({
      ...json,
      'WWW-Authenticate': 'Bearer realm="petstore", error="invalid_token"',
    });
  });

  it('does not come with another error', () => {
    expect(parsed(toErrorResponse(new NotFoundError('No pet.'), requestId)).headers).toStrictEqual(json);
    expect(parsed(toErrorResponse(new ServiceUnavailableError(undefined, 3), requestId)).headers).toStrictEqual({
      ...json,
      'Retry-After': '3',
    });
  });
});
