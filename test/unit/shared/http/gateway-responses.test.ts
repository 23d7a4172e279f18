import { describe, expect, it } from 'vitest';
import { REFUSAL_HEADERS, type RefusalContext } from '../../../../shared/auth/authorizer-contract';
import { ERROR_CODES } from '../../../../shared/errors';
import { EVERY_ANSWER_HEADERS } from '../../../../shared/http/every-answer';
import {
  EDGE_BODY_TOO_LARGE,
  EDGE_REFUSAL,
  GATEWAY_COMMON_HEADERS,
  GATEWAY_RESPONSES,
  renderErrorAnswer,
  renderGatewayResponse,
  type GatewayResponseType,
} from '../../../../shared/http/gateway-responses';

/**
 * API Gateway's own answers (and the WAF's), as rendered: the CDK stack declares the same
 * descriptions (test/infra/stack.test.ts checks that every type is declared) and the local server
 * answers with them. The rules come from decisions.md: every error is `application/json` with
 * `{ code, message, status }` and `status` equal to the HTTP status; every answer carries
 * `X-Request-Id` (where the answering party knows it) and `X-Content-Type-Options: nosniff`; a 401
 * carries `WWW-Authenticate: Bearer` (RFC 6750); a 429 and a 503 carry `Retry-After`.
 */

const requestId = 'c0ffee00-1234-4bcd-8ef0-0123456789ab';
const ALL_TYPES = Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[];

const commonHeaders = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Request-Id': requestId,
  'X-Content-Type-Options': 'nosniff',
};

const refusal: RefusalContext = {
  code: 'rate_limited',
  message: 'Too many requests without a valid API key from this address; retry after the time in Retry-After.',
  retryAfter: '30',
  rateLimitLimit: '60',
  rateLimitRemaining: '0',
  rateLimitReset: '1800000060',
  rateLimitPolicy: '"minute";q=60;w=60, "day";q=1000;w=86400',
  rateLimit: '"minute";r=0;t=30',
};

const body = (code: string, message: string, status: number): string => JSON.stringify({ code, message, status });

describe('every gateway response', () => {
  it("the headers all of them carry: JSON, no-store, the request id and every answer's headers", () => {
    expect(EVERY_ANSWER_HEADERS).toStrictEqual({ 'X-Content-Type-Options': 'nosniff' });
    expect(GATEWAY_COMMON_HEADERS).toStrictEqual({
      'Content-Type': { literal: 'application/json' },
      'Cache-Control': { literal: 'no-store' },
      'X-Request-Id': { request: 'requestId' },
      'X-Content-Type-Options': { literal: 'nosniff' },
    });
  });

  for (const type of ALL_TYPES) {
    it(`${type}: an Error body whose status is the HTTP status, a known code, and the common headers`, () => {
      const answer = renderGatewayResponse(type, { requestId, authorizer: refusal });
      const parsed = JSON.parse(answer.body) as { code: string; message: string; status: number };
      expect(Object.keys(parsed)).toStrictEqual(['code', 'message', 'status']);
      expect(parsed.status).toBe(answer.status);
      expect(ERROR_CODES).toContain(parsed.code);
      expect(parsed.message.length).toBeGreaterThan(0);
      expect(answer.headers).toMatchObject(commonHeaders);
      for (const [name, value] of Object.entries(EVERY_ANSWER_HEADERS)) expect(answer.headers[name]).toBe(value);
      if (answer.status === 401) expect(answer.headers['WWW-Authenticate']).toMatch(/^Bearer realm="petstore"/);
      if (answer.status === 429 || answer.status === 503)
        expect(Number(answer.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    });
  }
});

describe('each gateway response, exactly', () => {
  const render = (type: GatewayResponseType) => renderGatewayResponse(type, { requestId });

  it('UNAUTHORIZED: 401 unauthorized, the bare Bearer challenge (no key, or the authorizer found none valid)', () => {
    expect(render('UNAUTHORIZED')).toStrictEqual({
      status: 401,
      headers: { ...commonHeaders, 'WWW-Authenticate': 'Bearer realm="petstore"' },
      body: body(
        'unauthorized',
        'A valid API key is required, sent as "Authorization: Bearer <key>"; this request has none, or one that is malformed, unknown or revoked.',
        401,
      ),
    });
  });

  it('INVALID_API_KEY: 401 unauthorized, the challenge with error="invalid_token" (a key was sent)', () => {
    expect(render('INVALID_API_KEY')).toStrictEqual({
      status: 401,
      headers: { ...commonHeaders, 'WWW-Authenticate': 'Bearer realm="petstore", error="invalid_token"' },
      body: body('unauthorized', 'The API key is unknown or revoked.', 401),
    });
  });

  it("ACCESS_DENIED: 429 with the code, message, Retry-After and rate-limit headers of the authorizer's context", () => {
    expect(renderGatewayResponse('ACCESS_DENIED', { requestId, authorizer: refusal })).toStrictEqual({
      status: 429,
      headers: {
        ...commonHeaders,
        'Retry-After': '30',
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': '1800000060',
        'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
        RateLimit: '"minute";r=0;t=30',
      },
      body: body('rate_limited', refusal.message, 429),
    });
    // Every refusal header is a value of the context, under the name REFUSAL_HEADERS gives it.
    expect(GATEWAY_RESPONSES.ACCESS_DENIED.headers).toStrictEqual(
      Object.fromEntries(Object.entries(REFUSAL_HEADERS).map(([header, name]) => [header, { authorizer: name }])),
    );
    expect(GATEWAY_RESPONSES.ACCESS_DENIED.code).toStrictEqual({ authorizer: 'code' });
    expect(GATEWAY_RESPONSES.ACCESS_DENIED.message).toStrictEqual({ authorizer: 'message' });
  });

  it('ACCESS_DENIED: a value the context lacks is empty, with part of a context or none at all', () => {
    const partial = renderGatewayResponse('ACCESS_DENIED', {
      requestId,
      authorizer: { code: 'key_suspended', retryAfter: '900' },
    });
    expect(partial.headers).toMatchObject({ 'Retry-After': '900', 'X-RateLimit-Limit': '', RateLimit: '' });
    expect(partial.body).toBe('{"code":"key_suspended","message":"","status":429}');
    const none = renderGatewayResponse('ACCESS_DENIED', { requestId });
    expect(none).toStrictEqual({
      status: 429,
      headers: {
        ...commonHeaders,
        'Retry-After': '',
        'X-RateLimit-Limit': '',
        'X-RateLimit-Remaining': '',
        'X-RateLimit-Reset': '',
        'RateLimit-Policy': '',
        RateLimit: '',
      },
      body: '{"code":"","message":"","status":429}',
    });
  });

  it("THROTTLED: 429 rate_limited, Retry-After 60 (a usage plan's rate)", () => {
    expect(render('THROTTLED')).toStrictEqual({
      status: 429,
      headers: { ...commonHeaders, 'Retry-After': '60' },
      body: body('rate_limited', 'Too many requests: retry after the time in Retry-After.', 429),
    });
  });

  it("QUOTA_EXCEEDED: 429 rate_limited, Retry-After 3600 (a usage plan's daily quota)", () => {
    expect(render('QUOTA_EXCEEDED')).toStrictEqual({
      status: 429,
      headers: { ...commonHeaders, 'Retry-After': '3600' },
      body: body('rate_limited', 'The daily request quota of this key is used up.', 429),
    });
  });

  it('MISSING_AUTHENTICATION_TOKEN: 404 not_found (an unknown method or path)', () => {
    expect(render('MISSING_AUTHENTICATION_TOKEN')).toStrictEqual({
      status: 404,
      headers: commonHeaders,
      body: body('not_found', 'No operation answers this method and path.', 404),
    });
  });

  it('REQUEST_TOO_LARGE: 413 invalid_request', () => {
    expect(render('REQUEST_TOO_LARGE')).toStrictEqual({
      status: 413,
      headers: commonHeaders,
      body: body('invalid_request', 'The request body is larger than API Gateway accepts (10 MiB).', 413),
    });
  });

  it('DEFAULT_4XX: 400 invalid_request', () => {
    expect(render('DEFAULT_4XX')).toStrictEqual({
      status: 400,
      headers: commonHeaders,
      body: body('invalid_request', 'The request could not be accepted.', 400),
    });
  });

  for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR', 'INTEGRATION_TIMEOUT'] as const) {
    it(`${type}: 503 service_unavailable with Retry-After 1 (fail closed; a retry may cure it)`, () => {
      expect(render(type)).toStrictEqual({
        status: 503,
        headers: { ...commonHeaders, 'Retry-After': '1' },
        body: body(
          'service_unavailable',
          'The service is temporarily unavailable; retry after the time in Retry-After.',
          503,
        ),
      });
    });
  }

  for (const type of ['INTEGRATION_FAILURE', 'DEFAULT_5XX'] as const) {
    it(`${type}: 500 internal_error, no Retry-After, the request id to report`, () => {
      expect(render(type)).toStrictEqual({
        status: 500,
        headers: commonHeaders,
        body: body(
          'internal_error',
          'An unexpected error occurred. If it persists, report the request id in X-Request-Id.',
          500,
        ),
      });
    });
  }

  it('covers exactly the types the stack declares', () => {
    expect(ALL_TYPES.sort()).toStrictEqual(
      [
        'ACCESS_DENIED',
        'AUTHORIZER_CONFIGURATION_ERROR',
        'AUTHORIZER_FAILURE',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'INTEGRATION_FAILURE',
        'INTEGRATION_TIMEOUT',
        'INVALID_API_KEY',
        'MISSING_AUTHENTICATION_TOKEN',
        'QUOTA_EXCEEDED',
        'REQUEST_TOO_LARGE',
        'THROTTLED',
        'UNAUTHORIZED',
      ].sort(),
    );
  });
});

describe("renderErrorAnswer, for answers API Gateway has no type for (the local server's own refusals)", () => {
  it('renders a description like a gateway response: its headers over the common ones, a JSON-escaped body', () => {
    const answer = renderErrorAnswer(
      {
        status: 431,
        code: { literal: 'invalid_request' },
        message: { literal: 'Headers too "large"' },
        headers: { Connection: { literal: 'close' }, 'Cache-Control': { literal: 'no-cache' } },
      },
      { requestId },
    );
    expect(answer).toStrictEqual({
      status: 431,
      headers: { ...commonHeaders, 'Cache-Control': 'no-cache', Connection: 'close' },
      body: '{"code":"invalid_request","message":"Headers too \\"large\\"","status":431}',
    });
  });

  it('a value of the request is its id', () => {
    const answer = renderErrorAnswer(
      { status: 400, code: { literal: 'invalid_request' }, message: { request: 'requestId' }, headers: {} },
      { requestId: 'r-1' },
    );
    expect(answer.headers['X-Request-Id']).toBe('r-1');
    expect(answer.body).toBe('{"code":"invalid_request","message":"r-1","status":400}');
  });
});

describe("EDGE_REFUSAL, the WAF's 429 for an address over an edge limit", () => {
  it("is 429 rate_limited, Retry-After 60 seconds, JSON, no-store and every answer's headers; no request id (a WAF answer cannot carry it)", () => {
    expect(EDGE_REFUSAL.status).toBe(429);
    expect(EDGE_REFUSAL.retryAfterSeconds).toBe(60);
    expect(EDGE_REFUSAL.headers).toStrictEqual({
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    for (const [name, value] of Object.entries(EVERY_ANSWER_HEADERS)) expect(EDGE_REFUSAL.headers[name]).toBe(value);
    expect(EDGE_REFUSAL.body).toBe(
      '{"code":"rate_limited","message":"Too many requests from this address; retry after the time in Retry-After.","status":429}',
    );
    expect(JSON.parse(EDGE_REFUSAL.body).status).toBe(EDGE_REFUSAL.status);
  });
});

describe("EDGE_BODY_TOO_LARGE, the WAF's 413 for a body larger than any route accepts", () => {
  it("is 413 invalid_request, with the same fixed headers as the WAF's 429 and no Retry-After", () => {
    expect(EDGE_BODY_TOO_LARGE.status).toBe(413);
    expect(EDGE_BODY_TOO_LARGE.headers).toStrictEqual({
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(EDGE_BODY_TOO_LARGE.body).toBe(
      '{"code":"invalid_request","message":"The request body is larger than this API accepts (16,384 bytes).","status":413}',
    );
  });
});
