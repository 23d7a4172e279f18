import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { BEARER_REALM } from '../shared/http/middleware/error-response';
import type { ErrorCode } from '../shared/errors';

/**
 * API Gateway's own answers (before or instead of a Lambda) in our Error shape. Header values are
 * mapping expressions: a literal needs single quotes inside. API Gateway's 429s cannot carry the
 * exact rate-limit headers (only fixed ones), which is why the usage plans keep a margin above
 * the limiter's numbers.
 */
interface Shaped {
  readonly type: ResponseType;
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

const literal = (value: string): string => `'${value}'`;
const bearerChallenge = literal(`Bearer realm="${BEARER_REALM}"`);

export const GATEWAY_RESPONSES: readonly Shaped[] = [
  { type: ResponseType.UNAUTHORIZED, status: 401, code: 'unauthorized', message: 'An API key is required: send it as \\"Authorization: Bearer <key>\\".', headers: { 'WWW-Authenticate': bearerChallenge } },
  { type: ResponseType.INVALID_API_KEY, status: 401, code: 'unauthorized', message: 'The API key is unknown or revoked.', headers: { 'WWW-Authenticate': literal(`Bearer realm="${BEARER_REALM}", error="invalid_token"`) } },
  { type: ResponseType.ACCESS_DENIED, status: 401, code: 'unauthorized', message: 'The API key is not allowed to call this operation.', headers: { 'WWW-Authenticate': literal(`Bearer realm="${BEARER_REALM}", error="invalid_token"`) } },
  { type: ResponseType.THROTTLED, status: 429, code: 'rate_limited', message: 'Too many requests: retry after the time in Retry-After.', headers: { 'Retry-After': literal('60') } },
  { type: ResponseType.QUOTA_EXCEEDED, status: 429, code: 'rate_limited', message: 'The daily request quota of this key is used up.', headers: { 'Retry-After': literal('3600') } },
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: 'not_found', message: 'No operation answers this method and path.' },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, code: 'invalid_request', message: 'The request body is larger than API Gateway accepts (10 MiB).' },
  { type: ResponseType.DEFAULT_4XX, status: 400, code: 'invalid_request', message: 'The request could not be accepted.' },
  { type: ResponseType.DEFAULT_5XX, status: 503, code: 'service_unavailable', message: 'The service is temporarily unavailable; retry after the time in Retry-After.', headers: { 'Retry-After': literal('5') } },
];

export function addGatewayResponses(api: RestApi): void {
  for (const response of GATEWAY_RESPONSES) {
    const body = `{"code":"${response.code}","message":"${response.message}","status":${response.status}}`;
    api.addGatewayResponse(`Gateway${response.type.responseType}`, {
      type: response.type,
      statusCode: String(response.status),
      responseHeaders: { 'Content-Type': literal('application/json'), 'Cache-Control': literal('no-store'), ...response.headers },
      templates: { 'application/json': body },
    });
  }
}
