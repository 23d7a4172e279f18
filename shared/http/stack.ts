import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { rateLimiter as defaultRateLimiter } from '../limits/limiter-instance';
import type { RateLimiter } from '../limits/rate-limiter';
import { requestHeader } from './headers';
import { accessLog } from './middleware/access-log';
import { identifyCaller } from './middleware/authenticate';
import { answerProblem, errorResponse, internalErrorResponse } from './middleware/error-response';
import { rateLimit } from './middleware/rate-limit';
import { responseHeaders } from './middleware/response-headers';
import { sunset } from './middleware/sunset';
import { validateRequest } from './middleware/validate-request';
import { deprecationHeaders, type Deprecation } from './deprecation';
import type { HttpContext } from './request-context';
import type { ApiProblem } from '../errors';
import type { OutputOf, RequestHeadersSchema, RequestPartSchema } from '../validation/request-schema';
import { jsonBodyOf, NO_BODY, type HttpResult } from './result';
import { API_BASE_PATH, type OperationId } from './routes';

/** What an operation receives: validated input and who is calling; no event, no context. */
export interface OperationInput<Query, Path, Headers, Body> {
  readonly query: Query;
  readonly path: Path;
  /** The headers the operation declared, validated (absent ones left out). */
  readonly headers: Headers;
  /**
   * The body, validated: settles once the rate limiter admits the request and the body is judged
   * (a refused request's body is never read), so that an operation's reads overlap the count
   * before it needs the body. Rejects when the request is refused or its body invalid: the
   * stack then answers that, whatever the operation does with the rejection.
   */
  readonly body: Promise<Body>;
  readonly principal: Principal;
  /** Absolute base of this API as the client reached it, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** When DynamoDB calls must be given up (shortly before the Lambda times out); passed down to them. */
  readonly deadline: CallDeadline | undefined;
  /**
   * Resolves once the rate limiter admits the request (rejects when it refuses). An operation
   * that writes must await it before writing; a read need not: the stack awaits it before
   * answering and discards the read of a refused request.
   */
  readonly admitted: Promise<void>;
}

/** An operation: its request's schemas (any Standard Schema: the functions give checks written from the zod schemas and held to their answers), and what it does. */
export interface OperationDefinition<
  QuerySchema extends RequestPartSchema,
  PathSchema extends RequestPartSchema,
  HeadersSchema extends RequestHeadersSchema,
  BodySchema extends RequestPartSchema,
> {
  readonly operationId: OperationId;
  readonly query: QuerySchema;
  readonly path?: PathSchema;
  readonly headers?: HeadersSchema;
  readonly body?: BodySchema;
  /** Headers every response of this operation carries, errors included. */
  readonly responseHeaders?: Readonly<Record<string, string>>;
  /** A deprecated operation: every answer carries its deprecation headers, and from its sunset on it is 410 `gone`. */
  readonly deprecation?: Deprecation;
  readonly rateLimiter?: RateLimiter;
  readonly handle: (
    input: OperationInput<OutputOf<QuerySchema>, OutputOf<PathSchema>, OutputOf<HeadersSchema>, OutputOf<BodySchema>>,
  ) => Promise<HttpResult>;
}

export type ApiGatewayHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * The shared middy stack of every operation. `before` runs top to bottom; `after` and
 * `onError` run bottom to top, so the access log sees the final response and headers are set
 * on errors too:
 *
 *   access log → response headers → error handler → error shaping
 *   → identify caller → rate limit → (sunset) → validate → operation (or the refusal)
 *
 * The caller is who the authorizer allowed (requestContext.authorizer). Counting starts before
 * validation and the operation, and its decision is awaited before any answer or write: a read
 * overlaps the count (one DynamoDB round trip), a refused request answers 429 and writes nothing.
 * A 401 (no authorizer context) or 400 is recorded by its check and answered here instead of the
 * operation. A body is judged only once the request is admitted: a refused one parses none of it
 * (docs/api-behaviour.md, the order a request is judged in).
 */
export function httpOperation<
  QuerySchema extends RequestPartSchema,
  PathSchema extends RequestPartSchema = RequestPartSchema<undefined>,
  HeadersSchema extends RequestHeadersSchema = RequestHeadersSchema<Record<never, never>>,
  BodySchema extends RequestPartSchema = RequestPartSchema<undefined>,
>(definition: OperationDefinition<QuerySchema, PathSchema, HeadersSchema, BodySchema>): ApiGatewayHandler {
  const runOperation = async (event: APIGatewayProxyEvent, context: HttpContext): Promise<APIGatewayProxyResult> => {
    const state = context.petStore;
    const admitted = state.admission ?? Promise.resolve();
    const refusal = state.refusal;
    if (refusal !== undefined) {
      // Counted like any request: over the limit, the admission's 429 is thrown instead.
      await admitted;
      return answerProblem(state, refusal);
    }
    // A request refused before any work throws its 429 here, without running the operation.
    if (state.shed === true) await admitted;
    const judgeBody = state.judgeBody;
    const input = state.input as { query: never; path: never; headers: never } | undefined;
    if (input === undefined) {
      // A part other than the body failed: once counted, one 400 names the body's failures too.
      await admitted;
      (judgeBody as () => unknown)();
      return answerProblem(state, state.refusal as ApiProblem);
    }
    // The body only once admitted: a refused request (429, 503) parses none of it.
    const body = judgeBody === undefined ? NO_BODY_INPUT : admitted.then(() => bodyOrRefusal(state, judgeBody));
    if (body !== NO_BODY_INPUT) body.catch(ignoreDiscarded);
    const work = definition.handle({
      query: input.query,
      path: input.path,
      headers: input.headers,
      body: body as Promise<never>,
      principal: state.principal as Principal,
      baseUrl: baseUrlOf(event),
      deadline: state.deadline,
      admitted,
    });
    // The decision first: a refused request answers 429 whatever its work did meanwhile.
    work.catch(ignoreDiscarded);
    await admitted;
    if (body !== NO_BODY_INPUT) {
      // An invalid body is answered here, whatever the operation made of its refusal.
      await body.catch(ignoreDiscarded);
      const invalid = state.refusal;
      if (invalid !== undefined) return answerProblem(state, invalid);
    }
    const result = await work;
    if (result.body === NO_BODY) return bodilessResult(result);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    const given = result.headers;
    if (given !== undefined) for (const name in given) headers[name] = given[name] as string;
    return { statusCode: result.status, headers, body: jsonBodyOf(result) };
  };

  // Timeouts are per request (deadlineOf), not middy's: its abort signal is shared by all
  // requests of a process, so one slow request would abort the others in the local server.
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(runOperation, {
    timeoutEarlyInMillis: 0,
  })
    .use(accessLog(definition.operationId))
    .use(
      responseHeaders({
        ...definition.responseHeaders,
        ...(definition.deprecation === undefined ? {} : deprecationHeaders(definition.deprecation)),
      }),
    )
    .use(httpErrorHandler({ logger: false, fallbackMessage: internalErrorResponse('unknown').body }))
    .use(errorResponse())
    .use(identifyCaller())
    .use(rateLimit(definition.rateLimiter ?? defaultRateLimiter));
  if (definition.deprecation !== undefined) handler.use(sunset(definition.deprecation));
  handler.use(
    validateRequest({
      query: definition.query,
      path: definition.path,
      headers: definition.headers,
      body: definition.body,
    }),
  );

  return handler as unknown as ApiGatewayHandler;
}

/**
 * A bodiless answer (204): the operation's headers, no Content-Type, and the empty body API Gateway
 * (and the local server) send as none. The stack's headers are added after, as on any answer.
 */
function bodilessResult(result: HttpResult): APIGatewayProxyResult {
  return { statusCode: result.status, headers: { ...result.headers }, body: '' };
}

/** The work of a refused request is discarded, its failure too (the 429 is the answer). */
function ignoreDiscarded(): void {}

/** What an operation without a body gets as its body. */
const NO_BODY_INPUT: Promise<undefined> = Promise.resolve(undefined);

/** Thrown to the operation in place of an invalid body; the stack answers the request's refusal. */
const BODY_REFUSED = new Error('the request body was refused');

/** The judged body, or a rejection when it was refused (`state.refusal` then holds the answer). */
function bodyOrRefusal(state: HttpContext['petStore'], judgeBody: () => unknown): unknown {
  const body = judgeBody();
  if (state.refusal !== undefined) throw BODY_REFUSED;
  return body;
}

/**
 * The client-facing base URL: API Gateway's domain name (the local server gives its own address)
 * plus `/v1`. Never the Host header: a client's words must not become the links it is sent.
 */
function baseUrlOf(event: APIGatewayProxyEvent): string {
  const host = event.requestContext?.domainName ?? 'localhost';
  const protocol = requestHeader(event.headers, 'x-forwarded-proto') === 'http' ? 'http' : 'https';
  return `${protocol}://${host}${API_BASE_PATH}`;
}
