import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { BEARER_REALM } from '../shared/http/middleware/error-response';
import { MAX_BODY_BYTES_AS_WRITTEN } from '../shared/http/body-limit';
import { deprecationHeaders } from '../shared/http/deprecation';
import type { ErrorStatus, OperationDeclaration, Success } from '../shared/function-declaration';
import { ErrorBody, ErrorDetailBody } from '../shared/http/error-body';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../functions/table';
import { API_BASE_PATH, DOCUMENTATION_ROUTES } from '../shared/http/routes';
import { ENTERPRISE_TEMPLATE_LIMITS, STANDARD_PLAN_LIMITS, type RateLimits } from '../shared/limits/plans';
import { SHARD_THRESHOLD_PER_MINUTE } from '../shared/limits/counter-shards';
import { NewPet, Pet, PetStatus } from '../shared/pets/schema';

/**
 * The interface description, OpenAPI 3.1, built from the zod schemas the requests are validated against
 * (each operation's declaration, functions/<operationId>/operation.ts; shared/http/error-body.ts; the functions' checks are generated from them). Never edited by
 * hand: `npm run generate` writes openapi/openapi.json from this, and a test fails when they differ.
 */
export const INTERFACE_VERSION = '1.0.0';

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: '`invalid_request`: a parameter, the body or its `Content-Type` is invalid; `details` names every failing field.',
  401:
    '`unauthorized`: no `Authorization: Bearer <key>`, or the key is malformed, unknown or revoked. Answered by the gateway before any ' +
    'function runs, so it carries no rate-limit headers; requests without a valid key are counted per client address under the Free ' +
    'limits, and past them the address gets 429 instead.',
  404: '`not_found`: no animal has this identifier.',
  409:
    '`idempotency_in_progress`: another request with the same `Idempotency-Key` is being written at this moment. Retry after ' +
    "`Retry-After` with the same key and body: the answer is then that request's animal (or, had it failed, a new one).",
  410: '`gone`: the operation was removed at its `Sunset`; use the successor named in `Link`. Every request gets it from then on, whatever its `petId`.',
  413:
    `\`invalid_request\`: the body is larger than ${MAX_BODY_BYTES_AS_WRITTEN} bytes, the most any operation accepts (a new animal is under 1 KiB; ` +
    'a body sent with an operation that takes none is ignored up to that size). Answered at the edge, before any function runs and before the key ' +
    'is judged: it carries only `Cache-Control` and `X-Content-Type-Options`.',
  422:
    '`idempotency_key_reused`: the `Idempotency-Key` was used within the last 24 hours with a different body (compared after ' +
    'normalization: name trimmed, `status` defaulted). Nothing was written; send a new key for a new animal.',
  429:
    '`rate_limited`: a per-minute or daily limit of the key is used up; or `key_suspended`: the key kept sending after being refused and is suspended for 15 minutes ' +
    '(once its refused requests of one window, the minute or the day, pass 2.9 times its per-minute limit, counting those that arrived at least 1 s after the ' +
    "window's first refusal: a fleet of up to twice the per-minute limit in workers, each waiting as its own 429's `Retry-After` says, is never suspended). " +
    "The same codes refuse a client address that sent more requests with a bad key than the Free limits allow (its rate-limit headers are then the address's, " +
    "and this answer comes from the gateway, without an operation's own headers such as `Deprecation`). " +
    'The edge may also refuse with `rate_limited` and only `Retry-After` (60 s: a client address flooding, or sending more than the Free ' +
    "per-minute limit without an `Authorization` header; 3600 s: the key's daily quota at the gateway, far above its plan). Wait for `Retry-After`.",
  500:
    '`internal_error`: a fault of ours; the message names the request id to report. When the gateway answers it (a function ' +
    'crashed or gave no valid answer), only `X-Request-Id`, `Cache-Control` and `X-Content-Type-Options` come with it; no `Retry-After`.',
  503:
    '`service_unavailable`: the datastore is throttling or out of reach; retry after `Retry-After`. When the gateway answers it ' +
    '(the authorizer could not reach the key registry, or a function did not answer in time), only `Retry-After`, `X-Request-Id`, ' +
    '`Cache-Control` and `X-Content-Type-Options` come with it.',
};

const integerHeader = (description: string, minimum: number) => z.int().min(minimum).meta({ description });

/** Declared once under components.headers and referenced from each response. */
function asComponents<T extends Record<string, z.ZodType>>(headers: T, prefix = ''): T {
  return Object.fromEntries(
    Object.entries(headers).map(([name, schema]) => [name, schema.meta({ header: { id: `${prefix}${name}` } })]),
  ) as T;
}

/** Every response of an operation carries these (shared/http/middleware/response-headers.ts). */
const OPERATION_HEADERS = asComponents({
  'X-RateLimit-Limit': integerHeader('Requests allowed in the window closest to running out (minute or day).', 1),
  'X-RateLimit-Remaining': integerHeader(
    `Requests left in that window. For a key counted on shards (a plan above ${SHARD_THRESHOLD_PER_MINUTE.toLocaleString('en-US')} requests a minute), an estimate: the remaining of the shard that counted this request times the shards; 0 on a 429, which means every shard is full.`,
    0,
  ),
  'X-RateLimit-Reset': integerHeader('When that window resets, in Unix seconds.', 0),
  'RateLimit-Policy': z.string().meta({
    description:
      'Both windows of the key\'s plan, IETF draft form: `"minute";q=<limit>;w=60, "day";q=<limit>;w=86400`.',
    examples: [
      `"minute";q=${STANDARD_PLAN_LIMITS.free.perMinute};w=60, "day";q=${STANDARD_PLAN_LIMITS.free.perDay};w=86400`,
    ],
  }),
  RateLimit: z.string().meta({
    description: 'The window closest to running out, IETF draft form: `"<window>";r=<remaining>;t=<seconds to reset>`.',
    examples: ['"minute";r=59;t=42'],
  }),
  'X-Request-Id': z.string().min(1).meta({ description: "This request's id: quote it when reporting a problem." }),
  'Cache-Control': z
    .literal('no-store')
    .meta({ description: 'Answers depend on the key and the moment; never cache them.' }),
  'X-Content-Type-Options': z
    .literal('nosniff')
    .meta({ description: 'The body is what `Content-Type` says; never sniffed.' }),
});

const RETRY_AFTER = asComponents({
  'Retry-After': integerHeader('Whole seconds to wait before retrying (RFC 9110).', 1),
});
const WWW_AUTHENTICATE = asComponents({
  // A pattern, not zod's startsWith: that comes out as `format: "starts_with"`, which no standard defines.
  'WWW-Authenticate': z
    .string()
    .regex(new RegExp(`^Bearer realm="${BEARER_REALM}"`))
    .meta({
      description:
        'The Bearer challenge of RFC 6750; with `error="invalid_token"` when API Gateway refuses a key the service still knew (disabled or deleted in the console a moment ago).',
    }),
});

/** A deprecated operation's headers (its declaration's `deprecation`), declared once per operation under components.headers. */
const deprecationComponents = new Map<OperationId, Record<string, z.ZodType>>();
function deprecationHeadersOf(operationId: OperationId): Record<string, z.ZodType> {
  const deprecation = (OPERATIONS[operationId] as { deprecation?: Parameters<typeof deprecationHeaders>[0] })
    .deprecation;
  if (deprecation === undefined) return {};
  let headers = deprecationComponents.get(operationId);
  if (headers === undefined) {
    const values = deprecationHeaders(deprecation);
    headers = asComponents(
      {
        Deprecation: z
          .literal(values.Deprecation)
          .meta({ description: 'Since when the operation is deprecated (RFC 9745), Unix seconds.' }),
        Sunset: z.literal(values.Sunset).meta({ description: 'When the operation is removed (RFC 8594).' }),
        Link: z.literal(values.Link).meta({ description: 'The operation that replaces it.' }),
      },
      `${operationId}-`,
    );
    deprecationComponents.set(operationId, headers);
  }
  return headers;
}

/** The headers of an operation's success besides every answer's: an operation without its own has no entry. */
const SUCCESS_HEADERS: Partial<Record<OperationId, Record<string, z.ZodType>>> = {
  listPets: {
    Link: z
      .string()
      .regex(/^<[^>]+>; rel="next"$/)
      .optional()
      .meta({
        description: 'The next page (RFC 8288), absent on the last page.',
        examples: [`<https://api.example.com${API_BASE_PATH}/pets?limit=20&cursor=...>; rel="next"`],
      }),
  },
  createPet: {
    Location: z
      .string()
      .regex(new RegExp(`^${API_BASE_PATH}/pets/[1-9][0-9]*$`))
      .meta({ description: 'Where the new animal is.', examples: [`${API_BASE_PATH}/pets/1`] }),
    'Idempotent-Replayed': z.literal('true').optional().meta({
      description:
        'Present when this is the answer of an earlier request with the same `Idempotency-Key` (nothing was written now); absent on the answer that created the animal.',
    }),
  },
};

/** What every answer of the operation's function carries, errors included. */
function functionHeaders(operationId: OperationId): Record<string, z.ZodType> {
  return { ...OPERATION_HEADERS, ...deprecationHeadersOf(operationId) };
}

/** Every answer of the gateway itself (shared/http/gateway-responses.ts) carries these. */
const GATEWAY_HEADERS = {
  'X-Request-Id': OPERATION_HEADERS['X-Request-Id'],
  'Cache-Control': OPERATION_HEADERS['Cache-Control'],
  'X-Content-Type-Options': OPERATION_HEADERS['X-Content-Type-Options'],
};

/** What the web ACL's own answers carry (shared/http/gateway-responses.ts, EDGE_REFUSAL): fixed headers only, no request id. */
const EDGE_HEADERS = {
  'Cache-Control': OPERATION_HEADERS['Cache-Control'],
  'X-Content-Type-Options': OPERATION_HEADERS['X-Content-Type-Options'],
};

/**
 * A 429 comes from the function (the key's limits) or from the gateway (the address's, for
 * requests without a valid key): the operation's own fixed headers are then absent.
 */
function optionalOperationHeaders(operationId: OperationId): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(deprecationHeadersOf(operationId)).map(([name, schema]) => [
      name,
      schema.optional().meta({
        description: `As on every answer of the operation; absent when the gateway refused the client address.`,
      }),
    ]),
  );
}

function errorResponse(operationId: OperationId, status: ErrorStatus): ZodOpenApiResponseObject {
  const headers: Record<string, z.ZodType> =
    status === 413
      ? EDGE_HEADERS // answered by the web ACL, before any function runs
      : status === 401
        ? { ...GATEWAY_HEADERS, ...WWW_AUTHENTICATE } // answered by the gateway, before any function runs
        : status === 429
          ? { ...OPERATION_HEADERS, ...optionalOperationHeaders(operationId), ...RETRY_AFTER }
          : {
              ...functionHeaders(operationId),
              ...(status === 503 || status === 409 ? RETRY_AFTER : {}),
            };
  return {
    description: ERROR_DESCRIPTIONS[status],
    headers: z.object(headers),
    content: { 'application/json': { schema: ErrorBody } },
  };
}

/** What no schema of the body can state: the JSON text's size and its member names (the schema sees the parsed value). */
const JSON_BODY_RULES =
  'A JSON object, `Content-Type: application/json` (UTF-8; a leading byte order mark is ignored). Beyond what the schema states, ' +
  `two rules on the JSON text: a body of more than ${MAX_BODY_BYTES_AS_WRITTEN} bytes is a 413, ` +
  'and a member name given twice, which a parser would silently reduce to one, is a 400. ' +
  'Numbers are judged as written, as JSON Schema judges them: `1.0`, `1e0` and `20E-1` are integers, while `0.99999999999999999` is not, ' +
  'although a parser that reads numbers as doubles rounds it to 1 (a validator behind such a parser accepts what the service refuses).';

/** An operation's success response (its declaration's `success`): its headers, and its JSON body; a success without a body (204) has no `content`. */
export function successResponse(
  operationId: OperationId,
  success: Success = OPERATIONS[operationId].success,
): ZodOpenApiResponseObject {
  const headers = z.object({ ...functionHeaders(operationId), ...SUCCESS_HEADERS[operationId] });
  if (success.body === undefined) return { description: success.description, headers };
  return { description: success.description, headers, content: { 'application/json': { schema: success.body } } };
}

/** A request part as zod-openapi takes parameters: an object schema (the declarations' are strict objects). */
type ParameterSchema = z.core.$ZodType<unknown, Record<string, unknown>>;

function operation(operationId: OperationId): ZodOpenApiOperationObject {
  const declaration: OperationDeclaration = OPERATIONS[operationId];
  const { summary, description, stability, errors, request, success, deprecation } = declaration;
  const responses: ZodOpenApiOperationObject['responses'] = { [success.status]: successResponse(operationId, success) };
  for (const status of [...errors].sort()) responses[`${status}`] = errorResponse(operationId, status);
  return {
    operationId,
    summary,
    description,
    tags: ['pets'],
    ...(deprecation === undefined
      ? {}
      : { deprecated: true, 'x-sunset': deprecation.sunsetAt.toISOString().slice(0, 10) }),
    'x-stability': stability,
    requestParams: {
      query: request.query as ParameterSchema,
      ...(request.path === undefined ? {} : { path: request.path as ParameterSchema }),
      ...(request.headers === undefined ? {} : { header: request.headers as ParameterSchema }),
    },
    ...(request.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            description: JSON_BODY_RULES,
            content: { 'application/json': { schema: request.body } },
          },
        }),
    responses,
  };
}

function paths(): Record<string, Record<string, ZodOpenApiOperationObject>> {
  const result: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const operationId of OPERATION_IDS) {
    const { method, path } = OPERATIONS[operationId].route;
    result[path] = { ...result[path], [method.toLowerCase()]: operation(operationId) };
  }
  return result;
}

const describeLimits = (plan: string, limits: RateLimits): string =>
  `${plan} ${limits.perMinute.toLocaleString('en-US')} a minute and ${limits.perDay.toLocaleString('en-US')} a day`;

const stageServer = (stage: string) => ({
  url: `https://{apiId}.execute-api.{region}.amazonaws.com${API_BASE_PATH}`,
  description: `${stage}: the \`BaseUrl\` output of the PetStore-${stage} stack.`,
  variables: {
    apiId: { default: 'api-id', description: `The \`ApiId\` output of the PetStore-${stage} stack.` },
    region: { default: 'eu-west-1', description: 'The AWS region the stack is deployed to.' },
  },
});

export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Pet store API',
      version: INTERFACE_VERSION,
      description: [
        'List, add and fetch the animals of the pet store.',
        "Every operation needs an API key, sent as `Authorization: Bearer <key>`; the key's plan sets its limits:",
        `${describeLimits('Free', STANDARD_PLAN_LIMITS.free)}, ${describeLimits('Pro', STANDARD_PLAN_LIMITS.pro)},`,
        `${describeLimits('Business', STANDARD_PLAN_LIMITS.business)}, Enterprise set per key (e.g. ${describeLimits('', ENTERPRISE_TEMPLATE_LIMITS).trim()}).`,
        'Every response says where the key stands (`X-RateLimit-*`, `RateLimit-Policy`, `RateLimit`).',
        'A request is valid exactly when it matches this document: the few rules no schema can state are written in the description of what they concern,',
        'and every operation refuses (400) a query parameter it does not declare, or one given twice.',
        'On 429 and 503 wait for `Retry-After`, then back off exponentially with jitter.',
        `This document is served without a key at \`${API_BASE_PATH}${DOCUMENTATION_ROUTES.openApiDocument.path}\`, and as a reference page at \`${API_BASE_PATH}${DOCUMENTATION_ROUTES.apiReference.path}\`.`,
      ].join(' '),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      stageServer('prod'),
      stageServer('staging'),
      { url: `http://localhost:3000${API_BASE_PATH}`, description: 'local: `npm start` (PORT overrides 3000).' },
    ],
    tags: [{ name: 'pets', description: 'The animals of the store.' }],
    security: [{ bearerAuth: [] }],
    paths: paths(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key of your plan, sent as `Authorization: Bearer <key>`.',
        },
      },
      schemas: { Pet, NewPet, PetStatus, Error: ErrorBody, ErrorDetail: ErrorDetailBody },
    },
  });
}
