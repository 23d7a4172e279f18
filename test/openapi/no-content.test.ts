import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocument } from 'zod-openapi';
import { describe, expect, it, vi } from 'vitest';
import { noContent as baselineNoContent, respond, type Context as BaselineContext } from '../../bench/baseline/common';
import { lambdaContext } from '../../local/api-gateway-event';
import { successResponse } from '../../openapi/document';
import { deprecationHeaders, GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { noContent, ok } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import { REQUEST_CHECKS } from '../../functions/getPet/request-checks.generated';
import { RateLimiter } from '../../shared/limits/rate-limiter';
import { setLogSink } from '../../shared/log';
import { authorizerContextOf } from '../support/api';

/**
 * A bodiless answer (204) is first-class before any operation gives one: the stack sends it with
 * no body and no Content-Type but every other header, the interface description declares it with
 * no `content`, and the bench's baseline has the same answer. (test/openapi/no-content-contract.test.ts:
 * the response check; test/bench/baseline-parity.test.ts: ours and the baseline's alike.)
 */

/** Counts nothing (no DynamoDB): every request admitted, one of 1,000 used. */
const admitAll = new RateLimiter(
  { admit: async () => ({ outcome: 'admitted', minuteCount: 1, dayCount: 1 }) },
  Date.now,
);

function getPetEvent(requestId: string): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    resource: '/pets/{petId}',
    path: '/pets/1',
    pathParameters: { petId: '1' },
    headers: { Authorization: 'Bearer local-business-key' },
    multiValueHeaders: { Authorization: ['Bearer local-business-key'] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      domainName: 'example.com',
      path: '/v1/pets/1',
      identity: { sourceIp: '127.0.0.1' },
      authorizer: authorizerContextOf('local-business-key'),
    },
  } as unknown as APIGatewayProxyEvent;
}

/** getPet's request and checks, answered by `handle`; its log lines kept. */
async function answerOf(
  handle: () => ReturnType<typeof noContent>,
  requestId: string,
): Promise<{ response: APIGatewayProxyResult; log: Record<string, unknown>[] }> {
  const handler = httpOperation({
    ...REQUEST_CHECKS,
    deprecation: GET_PET_DEPRECATION,
    rateLimiter: admitAll,
    handle: async () => handle(),
  });
  const lines: string[] = [];
  const previous = setLogSink((line) => lines.push(line));
  try {
    return {
      response: await handler(getPetEvent(requestId), lambdaContext('no-content', 3_000)),
      log: lines.map((line) => JSON.parse(line)),
    };
  } finally {
    setLogSink(previous);
  }
}

describe('a bodiless answer through the stack', () => {
  it('is a 204 with an empty body, no Content-Type, and every other header of the operation and the stack', async () => {
    const { response, log } = await answerOf(() => noContent({ 'X-Given': 'kept' }), 'no-content-1');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase())).not.toContain('content-type');
    expect(response.headers).toMatchObject({
      'X-Request-Id': 'no-content-1',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '999',
      RateLimit: expect.stringMatching(/^"minute";r=999;t=\d+$/),
      'RateLimit-Policy': expect.any(String),
      'X-RateLimit-Reset': expect.any(String),
      ...deprecationHeaders(GET_PET_DEPRECATION),
      'X-Given': 'kept',
    });
    // Logged as any answer.
    expect(log).toEqual([
      expect.objectContaining({
        msg: 'request',
        requestId: 'no-content-1',
        operation: 'getPet',
        status: 204,
        Status2xx: 1,
      }),
    ]);
  });

  it('leaves the answers with a body as they were: the same headers plus Content-Type, the JSON text', async () => {
    const bodiless = (await answerOf(() => noContent(), 'no-content-2')).response;
    const withBody = (await answerOf(() => ok({ id: 1 }), 'no-content-3')).response;
    expect(withBody).toMatchObject({
      statusCode: 200,
      body: '{"id":1}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(Object.keys(withBody.headers ?? {}).sort()).toEqual(
      [...Object.keys(bodiless.headers ?? {}), 'Content-Type'].sort(),
    );
  });

  it('answers an error with its JSON body, as before', async () => {
    const refused = await httpOperation({ ...REQUEST_CHECKS, rateLimiter: admitAll, handle: async () => noContent() })(
      { ...getPetEvent('no-content-4'), pathParameters: { petId: 'abc' } },
      lambdaContext('no-content', 3_000),
    );
    expect(refused).toMatchObject({ statusCode: 400, headers: { 'Content-Type': 'application/json' } });
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'invalid_request', status: 400 });
  });
});

describe('the interface description of a bodiless success', () => {
  it('declares no content, with its description and the headers of the operation', () => {
    const bodiless = successResponse('getPet', { status: 204, description: 'No content.' });
    expect(bodiless).not.toHaveProperty('content');
    expect(bodiless.description).toBe('No content.');
    // The same headers as the operation's success with a body.
    const withBody = successResponse('getPet');
    expect(withBody.content).toBeDefined();
    expect(bodiless.headers).toEqual(withBody.headers);

    // And so in the document written from it.
    const written = createDocument({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/pets/{petId}': { delete: { responses: { 204: bodiless } } } },
    });
    const response = (written.paths!['/pets/{petId}']!.delete!.responses as Record<string, Record<string, unknown>>)[
      '204'
    ];
    expect(response).not.toHaveProperty('content');
    expect(Object.keys(response?.headers as object)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Remaining', 'Deprecation']),
    );
  });
});

describe("the bench baseline's bodiless answer", () => {
  it("is respond()'s answer without its body and its Content-Type: the same other headers and log line", () => {
    const context: BaselineContext = {
      requestId: 'baseline-1',
      logFields: '"operation":"getPet","route":"GET /v1/pets/{petId}"',
      startedAt: performance.now(),
      caller: undefined,
      sentAuthorization: false,
      counted: undefined,
    };
    const count = { ok: true, window: 'minute' as const, limit: 1000, remaining: 999, resetSeconds: 60 };
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    let bodiless: APIGatewayProxyResult;
    let withBody: APIGatewayProxyResult;
    try {
      bodiless = baselineNoContent(context, count, { 'X-Given': 'kept' });
      withBody = respond(context, count, { status: 204, body: '', headers: { 'X-Given': 'kept' } });
    } finally {
      write.mockRestore();
    }
    expect(bodiless.statusCode).toBe(204);
    expect(bodiless.body).toBe('');
    expect(bodiless.headers).not.toHaveProperty('Content-Type');
    const { 'Content-Type': contentType, ...rest } = withBody.headers ?? {};
    expect(contentType).toBe('application/json');
    expect(bodiless.headers).toEqual(rest);
    expect(bodiless.headers).toMatchObject({ 'X-Given': 'kept', 'X-Request-Id': 'baseline-1' });
    expect(lines.map((line) => JSON.parse(line).status)).toEqual([204, 204]);
  });
});
