import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { invalidRequest, type ErrorDetail } from '../../errors';
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from '../body-limit';
import { requestHeader, requestHeaderCount } from '../headers';
import { readJson } from '../json-text';
import { parseMediaType } from '../media-type';
import type { HttpContext } from '../request-context';
import type { RequestHeadersSchema, RequestIssue, RequestPartSchema } from '../../validation/request-schema';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/** What validateRequest checks a request against: a Standard Schema per part (generated checks in the functions; zod in tests). */
export interface RequestPartSchemas {
  readonly query: RequestPartSchema;
  readonly path?: RequestPartSchema;
  /** The request headers the operation reads; no other header is looked at. */
  readonly headers?: RequestHeadersSchema;
  /** Present for operations that take a JSON body. */
  readonly body?: RequestPartSchema;
}

/**
 * Parses and validates query, path, headers and body against the operation's schemas. All failing
 * fields of all four are collected into one 400, so a client fixes its request in one go. The
 * 400 is recorded as the request's refusal (answered once the request is counted), not thrown;
 * a request already refused (401) is not read at all.
 *
 * Query, path and headers are judged at once, so that an operation's reads overlap its count. The
 * body waits for the rate limiter's decision (`state.judgeBody`, called by the stack once the
 * request is admitted): a request refused (429), shed (a suspension) or failed (503) parses and
 * judges none of it, whatever it holds.
 */
export function validateRequest(
  schemas: RequestPartSchemas,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext> {
  const bodySchema = schemas.body;
  const validateRequestBefore = (request: Request): void => {
    const { event } = request;
    const state = request.context.petStore;
    if (state.refusal !== undefined) return;
    const details: ErrorDetail[] = [];
    const query = parsePart('query', schemas.query, readQuery(event, details), details);
    const path = schemas.path === undefined ? {} : parsePart('path', schemas.path, event.pathParameters ?? {}, details);
    const headers =
      schemas.headers === undefined
        ? {}
        : parsePart('header', schemas.headers, readHeaders(event, schemas.headers.names, details), details);
    if (bodySchema === undefined) {
      if (details.length > 0) state.refusal = invalidRequest(details);
      else state.input = { query, path, headers, body: undefined };
      return;
    }
    // The other parts' input now (undefined when one failed: the 400 then waits for the body's
    // failures too), the body once admitted.
    if (details.length === 0) state.input = { query, path, headers, body: undefined };
    state.judgeBody = function judgeBody(): unknown {
      const json = readJsonBody(event, details);
      if (json === TOO_LARGE) {
        state.refusal = BODY_TOO_LARGE;
        return undefined;
      }
      const body = json === undefined ? undefined : parsePart('body', bodySchema, json.value, details);
      if (details.length === 0) return body;
      state.refusal = invalidRequest(details);
      return undefined;
    };
  };
  return { before: validateRequestBefore };
}

function parsePart(part: string, schema: RequestPartSchema, value: unknown, details: ErrorDetail[]): unknown {
  // Through the Standard Schema interface: with a zod schema, a failure comes back as plain
  // issues, without the ZodError (an Error, with its stack trace) that safeParse builds.
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise)
    throw new Error(`the ${part} schema is asynchronous; request schemas must be synchronous`);
  if (result.issues === undefined) return result.value;
  for (const issue of result.issues) details.push(...toDetails(part, issue as ReadIssue, value));
  return undefined;
}

/** An issue as zod's schemas and the request checks give it: a path of plain keys, and the unknown members of an `unrecognized_keys`. */
type ReadIssue = RequestIssue & { readonly path: readonly PropertyKey[] };

function toDetails(part: string, { code, path, message, keys }: ReadIssue, input: unknown): ErrorDetail[] {
  const at = [part, ...path.map(String)].join('.');
  if (code === 'unrecognized_keys') {
    return (keys as readonly string[]).map((key) => ({
      path: `${at}.${key}`,
      message: part === 'query' ? 'is not a known parameter' : 'is not a known field',
    }));
  }
  if (code === 'invalid_type' && isAbsent(input, path)) return [{ path: at, message: 'is required' }];
  if (code === 'invalid_type' && path.length === 0 && part === 'body') {
    return [{ path: part, message: 'must be a JSON object' }];
  }
  return [{ path: at, message }];
}

/** True when the value at `path` is missing from the input (as opposed to present with a wrong type). */
function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}

/**
 * API Gateway gives repeated parameters only in the multi-value map; a repeated one is refused
 * rather than silently reduced to its last value.
 */
function readQuery(event: APIGatewayProxyEvent, details: ErrorDetail[]): Record<string, string> {
  const multi = event.multiValueQueryStringParameters;
  const single = event.queryStringParameters ?? {};
  const given: [string, string][] = [];
  for (const name of Object.keys(multi ?? single)) {
    const values = multi?.[name] ?? [single[name]];
    if (values.length > 1) details.push({ path: `query.${name}`, message: 'must be given at most once' });
    if (values[0] !== undefined) given.push([name, values[0]]);
  }
  // Not by assignment: a parameter named `__proto__` would set the prototype instead of a member.
  return Object.fromEntries(given);
}

/** The declared headers, each given at most once (API Gateway lists every value in the multi-value map). */
function readHeaders(
  event: APIGatewayProxyEvent,
  names: readonly string[],
  details: ErrorDetail[],
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const lowerCaseName = name.toLowerCase();
    const value = requestHeader(event.headers, lowerCaseName);
    if (value === undefined) continue;
    if (requestHeaderCount(event.multiValueHeaders, lowerCaseName) > 1)
      details.push({ path: `header.${name}`, message: 'must be given at most once' });
    else headers[name] = value;
  }
  return headers;
}

/** RFC 8259 section 8.1: a parser may ignore a leading byte order mark. */
const BYTE_ORDER_MARK = '\ufeff';

/** A body over MAX_BODY_BYTES: refused whole (413), before any of it is read. */
const TOO_LARGE: unique symbol = Symbol();

/** The body's JSON value, or undefined (with the reason in `details`) when it cannot be read. */
function readJsonBody(
  event: APIGatewayProxyEvent,
  details: ErrorDetail[],
): { readonly value: unknown } | typeof TOO_LARGE | undefined {
  const fail = (path: string, message: string): undefined => {
    details.push({ path, message });
    return undefined;
  };
  // The size first, whatever else is wrong: as the web ACL in front answers it.
  const raw = event.body === null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES) return TOO_LARGE;
  const header = requestHeader(event.headers, 'content-type');
  if (header === undefined) return fail('header.content-type', 'is required and must be application/json');
  if (requestHeaderCount(event.multiValueHeaders, 'content-type') > 1)
    return fail('header.content-type', 'must be given once');
  const mediaType = parseMediaType(header);
  if (mediaType === undefined) return fail('header.content-type', 'is not a valid media type (RFC 9110)');
  if (mediaType.type !== 'application/json') return fail('header.content-type', 'must be application/json');
  const charset = mediaType.parameters.charset?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8') return fail('header.content-type', 'charset must be utf-8');

  if (raw.length === 0) return fail('body', 'is required: a JSON object');
  let text: string;
  try {
    // A decoder per body: API Gateway sends base64 only for binary media types, which this API declares none of.
    text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    return fail('body', 'is not valid UTF-8');
  }
  const json = readJson(text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text);
  if (json === undefined) return fail('body', 'is not valid JSON');
  const { repeated } = json;
  if (repeated !== undefined)
    return fail(['body', ...repeated.path, repeated.name].join('.'), 'is given more than once');
  return json;
}
