import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from '../../../../../shared/http/body-limit';
import { validateRequest, type RequestPartSchemas } from '../../../../../shared/http/middleware/validate-request';
import type { HttpContext } from '../../../../../shared/http/request-context';

/**
 * The request validation middleware on its own, with events shaped as API Gateway shapes them and
 * schemas of the kinds it must handle (nested objects, refinements, transforms) beyond the flat
 * ones our operations use today. The HTTP tests (test/http/request-validation.test.ts) hold the
 * same rules through the served API.
 */
function validate(
  schemas: RequestPartSchemas,
  event: Partial<APIGatewayProxyEvent>,
  refusal?: HttpContext['petStore']['refusal'],
) {
  const petStore = {
    operationId: 'createPet',
    requestId: 'r',
    startedAt: 0,
    deadline: undefined,
    refusal,
  } as HttpContext['petStore'];
  const fullEvent = {
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
    ...event,
  } as APIGatewayProxyEvent;
  const before = validateRequest(schemas).before as (request: unknown) => void;
  before({ event: fullEvent, context: { petStore }, response: undefined, error: undefined, internal: {} });
  // As the stack does once the request is admitted.
  const body = petStore.judgeBody?.();
  const input =
    petStore.refusal === undefined && petStore.input !== undefined ? { ...petStore.input, body } : undefined;
  return { details: petStore.refusal?.details, input, refusal: petStore.refusal };
}

/** Only the middleware's `before`, as it runs while the request is being counted. */
function beforeAdmission(schemas: RequestPartSchemas, event: Partial<APIGatewayProxyEvent>) {
  const petStore = {
    operationId: 'createPet',
    requestId: 'r',
    startedAt: 0,
    deadline: undefined,
  } as HttpContext['petStore'];
  const before = validateRequest(schemas).before as (request: unknown) => void;
  before({
    event: {
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      ...event,
    },
    context: { petStore },
    response: undefined,
    error: undefined,
    internal: {},
  });
  return petStore;
}

const anyQuery = z.record(z.string(), z.string());
const jsonHeaders = (contentType = 'application/json') => ({
  headers: { 'Content-Type': contentType },
  multiValueHeaders: { 'Content-Type': [contentType] },
});

describe('the query', () => {
  it('is read from the single-value map when there is no multi-value one', () => {
    const { input } = validate({ query: anyQuery }, { queryStringParameters: { limit: '5' } });
    expect(input?.query).toStrictEqual({ limit: '5' });
  });

  it('a parameter with no value in the multi-value map is not given', () => {
    const { input, details } = validate(
      { query: z.strictObject({ limit: z.optional(z.string()) }) },
      { queryStringParameters: {}, multiValueQueryStringParameters: { other: [] } },
    );
    expect(details).toBeUndefined();
    expect(input?.query).toStrictEqual({});
  });

  it('a parameter named __proto__ is a parameter (here unknown), not the prototype', () => {
    expect(
      validate({ query: z.strictObject({}) }, { multiValueQueryStringParameters: { ['__proto__']: ['x'] } }).details,
    ).toEqual([{ path: 'query.__proto__', message: 'is not a known parameter' }]);
  });
});

describe('declared headers', () => {
  // A schema for the headers names them (zod's object does not say which of its members it reads).
  const schemas = {
    query: anyQuery,
    headers: Object.assign(z.strictObject({ 'Idempotency-Key': z.optional(z.string()) }), {
      names: ['Idempotency-Key'],
    }),
  };

  it('one not sent is not in the input', () => {
    expect(validate(schemas, {}).input?.headers).toStrictEqual({});
  });

  it('one sent is read in any spelling, by its canonical name, and no other header is', () => {
    const { input } = validate(schemas, {
      headers: { 'idempotency-key': 'k1', 'X-Other': 'x' },
      multiValueHeaders: { 'idempotency-key': ['k1'], 'X-Other': ['x'] },
    });
    expect(input?.headers).toStrictEqual({ 'Idempotency-Key': 'k1' });
  });

  it('one sent twice must be given at most once', () => {
    const { details } = validate(schemas, {
      headers: { 'Idempotency-Key': 'k2' },
      multiValueHeaders: { 'Idempotency-Key': ['k1'], 'idempotency-key': ['k2'] },
    });
    expect(details).toEqual([{ path: 'header.Idempotency-Key', message: 'must be given at most once' }]);
  });

  it('an operation that declares none reads none', () => {
    expect(validate({ query: anyQuery }, { headers: { 'Idempotency-Key': 'k1' } }).input?.headers).toStrictEqual({});
  });
});

describe('what a failing field is told', () => {
  const nested = z.strictObject({ owner: z.strictObject({ name: z.string('must be a string') }) });

  it('a member missing at any depth "is required"; one there with the wrong type gets its schema\'s message', () => {
    expect(validate({ query: anyQuery, body: nested }, { ...jsonHeaders(), body: '{"owner":{}}' }).details).toEqual([
      { path: 'body.owner.name', message: 'is required' },
    ]);
    expect(
      validate({ query: anyQuery, body: nested }, { ...jsonHeaders(), body: '{"owner":{"name":1}}' }).details,
    ).toEqual([{ path: 'body.owner.name', message: 'must be a string' }]);
  });

  it("a member given as undefined (an adapter's map, never JSON) is missing", () => {
    const { details } = validate(
      { query: anyQuery, path: z.strictObject({ petId: z.string() }) },
      { pathParameters: { petId: undefined } },
    );
    expect(details).toEqual([{ path: 'path.petId', message: 'is required' }]);
  });

  it('a path that runs through no object (after a transform) is missing, not a failure of ours', () => {
    const transformed = z.pipe(
      z.transform(() => ({ owner: {} })),
      nested,
    );
    expect(validate({ query: anyQuery, body: transformed }, { ...jsonHeaders(), body: 'null' }).details).toEqual([
      { path: 'body.owner.name', message: 'is required' },
    ]);
    // Through a string too, though a string has members of its own ("0", "length").
    const wrapped = z.pipe(
      z.transform((text) => [text]),
      z.array(z.number('must be a number')),
    );
    expect(validate({ query: anyQuery, body: wrapped }, { ...jsonHeaders(), body: '"ab"' }).details).toEqual([
      { path: 'body.0', message: 'is required' },
    ]);
  });

  it('a refinement that names a missing member keeps its own message', () => {
    const refined = z
      .strictObject({ name: z.optional(z.string()) })
      .check(z.refine(() => false, { path: ['name'], message: 'name or tag, one of the two' }));
    expect(validate({ query: anyQuery, body: refined }, { ...jsonHeaders(), body: '{}' }).details).toEqual([
      { path: 'body.name', message: 'name or tag, one of the two' },
    ]);
  });

  it('only a body that is no object "must be a JSON object": a refinement of the whole body, or a query of the wrong type, keeps its message', () => {
    const refined = z.strictObject({}).check(z.refine(() => false, 'not today'));
    expect(validate({ query: anyQuery, body: refined }, { ...jsonHeaders(), body: '{}' }).details).toEqual([
      { path: 'body', message: 'not today' },
    ]);
    expect(validate({ query: z.string('must be a string') }, {}).details).toEqual([
      { path: 'query', message: 'must be a string' },
    ]);
    expect(validate({ query: anyQuery, body: z.strictObject({}) }, { ...jsonHeaders(), body: '[]' }).details).toEqual([
      { path: 'body', message: 'must be a JSON object' },
    ]);
  });

  it('an asynchronous schema is a programming error, not a 400', () => {
    const asynchronous = z.string().check(z.refine(async () => true));
    expect(() => validate({ query: anyQuery, body: asynchronous }, { ...jsonHeaders(), body: '"x"' })).toThrow(
      'the body schema is asynchronous; request schemas must be synchronous',
    );
  });
});

describe('the body', () => {
  const body = z.record(z.string(), z.unknown());

  it('a Content-Type sent twice must be given once', () => {
    const { details } = validate(
      { query: anyQuery, body },
      {
        headers: { 'Content-Type': 'application/json' },
        multiValueHeaders: { 'Content-Type': ['application/json'], 'content-type': ['application/json'] },
        body: '{}',
      },
    );
    expect(details).toEqual([{ path: 'header.content-type', message: 'must be given once' }]);
  });

  it(`is bounded at ${MAX_BODY_BYTES} bytes (16 KiB), counted in UTF-8, whether text or base64: a larger one is a 413, whatever else is wrong`, () => {
    expect(MAX_BODY_BYTES).toBe(16_384);
    expect(BODY_TOO_LARGE).toStrictEqual({
      status: 413,
      code: 'invalid_request',
      message: 'The request body is larger than this API accepts (16,384 bytes).',
    });
    const padded = (bytes: number, filler: string) =>
      `{"a":"${filler.repeat((bytes - 8) / Buffer.byteLength(filler))}"}`;
    // Two bytes per character: 8,192 characters over the bound.
    expect(
      validate({ query: anyQuery, body }, { ...jsonHeaders(), body: padded(MAX_BODY_BYTES + 2, 'é') }).refusal,
    ).toBe(BODY_TOO_LARGE);
    expect(
      validate({ query: anyQuery, body }, { ...jsonHeaders(), body: padded(MAX_BODY_BYTES, 'é') }).refusal,
    ).toBeUndefined();
    const base64 = (text: string) => ({
      ...jsonHeaders(),
      body: Buffer.from(text).toString('base64'),
      isBase64Encoded: true,
    });
    expect(validate({ query: anyQuery, body }, base64(padded(MAX_BODY_BYTES + 2, 'x'))).refusal).toBe(BODY_TOO_LARGE);
    expect(validate({ query: anyQuery, body }, base64(padded(MAX_BODY_BYTES, 'x'))).input?.body).toStrictEqual({
      a: 'x'.repeat(MAX_BODY_BYTES - 8),
    });
    // Before its Content-Type and its query are looked at, as the web ACL in front answers it.
    expect(
      validate(
        { query: z.strictObject({}), body },
        {
          headers: { 'Content-Type': 'text/plain' },
          multiValueHeaders: {},
          queryStringParameters: { x: '1' },
          body: padded(MAX_BODY_BYTES + 1, 'x'),
        },
      ).refusal,
    ).toBe(BODY_TOO_LARGE);
  });

  it('is judged only once the request is admitted: before, neither the body nor the 400 of the other parts is decided', () => {
    let bodyChecks = 0;
    const counting: RequestPartSchemas['body'] = {
      '~standard': {
        validate: (value: unknown) => {
          bodyChecks += 1;
          return { value };
        },
      },
    };
    const state = beforeAdmission(
      { query: z.strictObject({}), body: counting },
      {
        ...jsonHeaders(),
        queryStringParameters: { x: '1' },
        multiValueQueryStringParameters: { x: ['1'] },
        body: '{"a":1.0000000000000000001}',
      },
    );
    expect(bodyChecks).toBe(0);
    expect(state.refusal).toBeUndefined();
    // The query failed: no input for the operation to start with.
    expect(state.input).toBeUndefined();
    expect(state.judgeBody).toBeTypeOf('function');
    // Once admitted: one 400 naming every failing part, the query's and the body's.
    expect(state.judgeBody?.()).toBeUndefined();
    expect(bodyChecks).toBe(1);
    expect(state.refusal?.details).toEqual([{ path: 'query.x', message: 'is not a known parameter' }]);
  });

  it('with valid other parts, gives them at once and the body once admitted', () => {
    const state = beforeAdmission(
      { query: z.strictObject({}), body: z.strictObject({ a: z.number() }) },
      { ...jsonHeaders(), body: '{"a":1}' },
    );
    expect(state.input).toStrictEqual({ query: {}, path: {}, headers: {}, body: undefined });
    expect(state.judgeBody?.()).toStrictEqual({ a: 1 });
    expect(state.refusal).toBeUndefined();
    const invalid = beforeAdmission(
      { query: z.strictObject({}), body: z.strictObject({ a: z.number() }) },
      { ...jsonHeaders(), body: '{"a":"1"}' },
    );
    expect(invalid.judgeBody?.()).toBeUndefined();
    expect(invalid.refusal?.details).toEqual([{ path: 'body.a', message: expect.any(String) }]);
  });

  it('an operation without a body is decided at once, and leaves nothing to judge later', () => {
    const state = beforeAdmission(
      { query: z.strictObject({}) },
      { queryStringParameters: { x: '1' }, multiValueQueryStringParameters: { x: ['1'] } },
    );
    expect(state.judgeBody).toBeUndefined();
    expect(state.refusal?.details).toEqual([{ path: 'query.x', message: 'is not a known parameter' }]);
  });

  it('one leading byte order mark is ignored, in text or base64; a second is not JSON', () => {
    const bom = '\ufeff';
    const base64 = (text: string) => ({
      ...jsonHeaders(),
      body: Buffer.from(text).toString('base64'),
      isBase64Encoded: true,
    });
    expect(validate({ query: anyQuery, body }, { ...jsonHeaders(), body: `${bom}{"a":1}` }).input?.body).toStrictEqual({
      a: 1,
    });
    expect(validate({ query: anyQuery, body }, base64(`${bom}{"a":1}`)).input?.body).toStrictEqual({ a: 1 });
    const notJson = [{ path: 'body', message: 'is not valid JSON' }];
    expect(validate({ query: anyQuery, body }, { ...jsonHeaders(), body: `${bom}${bom}{"a":1}` }).details).toEqual(
      notJson,
    );
    expect(validate({ query: anyQuery, body }, base64(`${bom}${bom}{"a":1}`)).details).toEqual(notJson);
  });

  it('an empty body is required, not invalid JSON', () => {
    expect(validate({ query: anyQuery, body }, { ...jsonHeaders(), body: '' }).details).toEqual([
      { path: 'body', message: 'is required: a JSON object' },
    ]);
  });
});

describe('a request already refused', () => {
  it('is not read: its refusal stands and no input is set', () => {
    const refusal = { status: 401, code: 'unauthorized', message: 'no key' } as HttpContext['petStore']['refusal'];
    const result = validate(
      { query: z.strictObject({}) },
      { queryStringParameters: { limit: '1' }, multiValueQueryStringParameters: { limit: ['1'] } },
      refusal,
    );
    expect(result.refusal).toBe(refusal);
    expect(result.input).toBeUndefined();
  });
});
