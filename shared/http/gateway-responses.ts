import { REFUSAL_HEADERS, type RefusalContext } from '../auth/authorizer-contract';
import type { ErrorCode } from '../errors';
import { BODY_TOO_LARGE } from './body-limit';
import { EVERY_ANSWER_HEADERS } from './every-answer';
import { BEARER_REALM } from './middleware/error-response';

/**
 * API Gateway's own answers (before or instead of a function), in our Error shape, described once:
 * the CDK stack declares them as the stage's gateway responses (infra/gateway-responses.ts) and
 * the local server, standing in for API Gateway, answers with them (local/gateway.ts).
 *
 * A value is a literal, a value of the request (its id), or a value of the authorizer's context:
 * gateway responses can map `context.authorizer.<name>`, which is how the authorizer's 429 for an
 * address carries its Retry-After and rate-limit headers. Nothing else is dynamic: a response
 * API Gateway makes up itself (an unknown key, a throttled usage plan) has fixed headers.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'ACCESS_DENIED'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'REQUEST_TOO_LARGE'
  | 'DEFAULT_4XX'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_TIMEOUT'
  | 'INTEGRATION_FAILURE'
  | 'DEFAULT_5XX';

export type GatewayValue =
  | { readonly literal: string }
  | { readonly authorizer: keyof RefusalContext }
  | { readonly request: 'requestId' };

export interface GatewayResponse {
  readonly status: number;
  readonly code: GatewayValue;
  readonly message: GatewayValue;
  /** Besides the headers every gateway response has (GATEWAY_COMMON_HEADERS). */
  readonly headers: Readonly<Record<string, GatewayValue>>;
}

const literal = (value: string): GatewayValue => ({ literal: value });
const code = (value: ErrorCode): GatewayValue => literal(value);

export const GATEWAY_COMMON_HEADERS: Readonly<Record<string, GatewayValue>> = {
  'Content-Type': literal('application/json'),
  'Cache-Control': literal('no-store'),
  'X-Request-Id': { request: 'requestId' },
  ...Object.fromEntries(Object.entries(EVERY_ANSWER_HEADERS).map(([name, value]) => [name, literal(value)])),
};

const BEARER_CHALLENGE = `Bearer realm="${BEARER_REALM}"`;
const INVALID_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token"`;

const refusalHeaders = Object.fromEntries(
  Object.entries(REFUSAL_HEADERS).map(([header, name]) => [header, { authorizer: name } as GatewayValue]),
);

const UNAVAILABLE: GatewayResponse = {
  status: 503,
  code: code('service_unavailable'),
  message: literal('The service is temporarily unavailable; retry after the time in Retry-After.'),
  headers: { 'Retry-After': literal('1') },
};

const INTERNAL_ERROR: GatewayResponse = {
  status: 500,
  code: code('internal_error'),
  message: literal('An unexpected error occurred. If it persists, report the request id in X-Request-Id.'),
  headers: {},
};

export const GATEWAY_RESPONSES: Readonly<Record<GatewayResponseType, GatewayResponse>> = {
  // No Authorization header (API Gateway does not call the authorizer), or the authorizer found
  // no valid key in it. One response for both: its challenge cannot depend on which it was.
  UNAUTHORIZED: {
    status: 401,
    code: code('unauthorized'),
    message: literal(
      'A valid API key is required, sent as "Authorization: Bearer <key>"; this request has none, or one that is malformed, unknown or revoked.',
    ),
    headers: { 'WWW-Authenticate': literal(BEARER_CHALLENGE) },
  },
  // The authorizer knew the key, but API Gateway does not (any more): disabled or deleted in the
  // console before the key mirror caught up.
  INVALID_API_KEY: {
    status: 401,
    code: code('unauthorized'),
    message: literal('The API key is unknown or revoked.'),
    headers: { 'WWW-Authenticate': literal(INVALID_TOKEN_CHALLENGE) },
  },
  // The authorizer's Deny: an address that used up its allowance of requests without a valid key.
  ACCESS_DENIED: {
    status: 429,
    code: { authorizer: 'code' },
    message: { authorizer: 'message' },
    headers: refusalHeaders,
  },
  THROTTLED: {
    status: 429,
    code: code('rate_limited'),
    message: literal('Too many requests: retry after the time in Retry-After.'),
    headers: { 'Retry-After': literal('60') },
  },
  QUOTA_EXCEEDED: {
    status: 429,
    code: code('rate_limited'),
    message: literal('The daily request quota of this key is used up.'),
    headers: { 'Retry-After': literal('3600') },
  },
  MISSING_AUTHENTICATION_TOKEN: {
    status: 404,
    code: code('not_found'),
    message: literal('No operation answers this method and path.'),
    headers: {},
  },
  REQUEST_TOO_LARGE: {
    status: 413,
    code: code('invalid_request'),
    message: literal('The request body is larger than API Gateway accepts (10 MiB).'),
    headers: {},
  },
  DEFAULT_4XX: {
    status: 400,
    code: code('invalid_request'),
    message: literal('The request could not be accepted.'),
    headers: {},
  },
  // The authorizer failed: as it is written, that means the key registry or the counters were out
  // of reach (API Gateway calls a thrown error a configuration error). Fail closed, and say so.
  AUTHORIZER_FAILURE: UNAVAILABLE,
  AUTHORIZER_CONFIGURATION_ERROR: UNAVAILABLE,
  // The function did not answer in API Gateway's time (it answers before its own timeout).
  INTEGRATION_TIMEOUT: UNAVAILABLE,
  // The function failed to answer at all (crashed, killed, a malformed answer): our bug, not
  // something a retry cures. So is anything else API Gateway fails at.
  INTEGRATION_FAILURE: INTERNAL_ERROR,
  DEFAULT_5XX: INTERNAL_ERROR,
};

export interface GatewayAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A gateway response as API Gateway sends it, given the request id and the authorizer's context. */
export function renderGatewayResponse(
  type: GatewayResponseType,
  values: { readonly requestId: string; readonly authorizer?: Readonly<Partial<RefusalContext>> },
): GatewayAnswer {
  return renderErrorAnswer(GATEWAY_RESPONSES[type], values);
}

/**
 * An answer described as a gateway response is, rendered alike: a gateway response, or one of the
 * local server's own refusals (local/server.ts), which API Gateway has no response type for.
 */
export function renderErrorAnswer(
  response: GatewayResponse,
  values: { readonly requestId: string; readonly authorizer?: Readonly<Partial<RefusalContext>> },
): GatewayAnswer {
  const textOf = (value: GatewayValue): string =>
    'literal' in value
      ? value.literal
      : 'request' in value
        ? values.requestId
        : (values.authorizer?.[value.authorizer] ?? '');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...GATEWAY_COMMON_HEADERS, ...response.headers }))
    headers[name] = textOf(value);
  const body = `{"code":${JSON.stringify(textOf(response.code))},"message":${JSON.stringify(textOf(response.message))},"status":${response.status}}`;
  return { status: response.status, headers, body };
}

/**
 * The WAF's refusal of an address over an edge limit (shared/limits/edge-limits.ts): 429 with the
 * Error body and fixed headers, since a WAF answer cannot carry the request's id.
 */
export const EDGE_REFUSAL: {
  readonly status: number;
  readonly retryAfterSeconds: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
} = {
  status: 429,
  retryAfterSeconds: 60,
  /** Fixed headers besides Retry-After: a WAF answer cannot carry the request's id. */
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...EVERY_ANSWER_HEADERS },
  body: JSON.stringify({
    code: 'rate_limited',
    message: 'Too many requests from this address; retry after the time in Retry-After.',
    status: 429,
  }),
};

/**
 * The WAF's refusal of a body larger than any route accepts (shared/http/body-limit.ts): 413 with
 * the Error body and the same fixed headers, before the key or the route is judged.
 */
export const EDGE_BODY_TOO_LARGE: {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
} = {
  status: BODY_TOO_LARGE.status,
  headers: EDGE_REFUSAL.headers,
  body: JSON.stringify({ code: BODY_TOO_LARGE.code, message: BODY_TOO_LARGE.message, status: BODY_TOO_LARGE.status }),
};
