import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import document from '../../openapi/openapi.json' with { type: 'json' };
import { loadFunctionHandlers } from '../../local/server';
import { deprecationHeaders, GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { noContent } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import { REQUEST_CHECKS } from '../../functions/getPet/request-checks.generated';
import { startTestApi, type TestApi } from '../support/api';
import { checkResponse, type ObservedResponse } from '../support/contract';

/**
 * The response check (test/support/contract.ts) of a bodiless success, before any operation has
 * one: in this file's interface description getPet succeeds with 204, its success response as
 * openapi/document.ts writes one without a body (`successResponse`), in place of its 200. An empty
 * answer passes; a body, a Content-Type or a Content-Length saying there is one is refused.
 */
vi.mock('../../openapi/openapi.json', async (importOriginal) => {
  const { default: committed } = await importOriginal<{ default: Record<string, any> }>();
  const { createDocument } = await import('zod-openapi');
  const { successResponse } = await import('../../openapi/document');
  const bodiless = successResponse('getPet', { status: 204, description: 'No content.' });
  // Its headers are components of the committed document (the same names), referred to as there.
  const written = createDocument({
    openapi: '3.1.0',
    info: { title: 'bodiless', version: '0' },
    paths: { '/pets/{petId}': { get: { responses: { 204: bodiless } } } },
  });
  const document = structuredClone(committed);
  const responses = document.paths['/pets/{petId}'].get.responses;
  delete responses['200'];
  responses['204'] = JSON.parse(JSON.stringify(written.paths?.['/pets/{petId}']?.get?.responses?.['204']));
  return { default: document };
});

const HEADERS = {
  'x-ratelimit-limit': '1000',
  'x-ratelimit-remaining': '999',
  'x-ratelimit-reset': '1795305660',
  'ratelimit-policy': '"minute";q=1000;w=60, "day";q=10000;w=86400',
  ratelimit: '"minute";r=999;t=60',
  'x-request-id': 'req-1',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  ...deprecationHeaders(GET_PET_DEPRECATION),
};

function bodiless(overrides: { text?: string; headers?: Record<string, string> } = {}): ObservedResponse {
  return {
    method: 'GET',
    url: 'http://localhost:3000/v1/pets/1',
    status: 204,
    text: overrides.text ?? '',
    headers: new Headers({ ...HEADERS, ...overrides.headers }),
  };
}

describe('the response check of a success declared without content (204)', () => {
  it('reads a document whose getPet success is a 204 without content', () => {
    const responses = (document as Record<string, any>).paths['/pets/{petId}'].get.responses;
    expect(Object.keys(responses)).toContain('204');
    expect(Object.keys(responses)).not.toContain('200');
    expect(responses['204']).not.toHaveProperty('content');
    expect(responses['204'].description).toBe('No content.');
  });

  it('accepts an empty answer with the declared headers, and no Content-Length, not even 0 (RFC 9110, 8.6)', () => {
    expect(() => checkResponse(bodiless())).not.toThrow();
    expect(() => checkResponse(bodiless({ headers: { 'content-length': '0' } }))).toThrow(
      /Content-Length 0 where no content is declared/,
    );
  });

  it('refuses a body, a Content-Type or a Content-Length saying there is one', () => {
    expect(() => checkResponse(bodiless({ text: '{}' }))).toThrow(/a body where none is declared/);
    expect(() => checkResponse(bodiless({ text: '{}', headers: { 'content-type': 'application/json' } }))).toThrow(
      /a body where none is declared/,
    );
    expect(() => checkResponse(bodiless({ headers: { 'content-type': 'application/json' } }))).toThrow(
      /Content-Type "application\/json" where no content is declared/,
    );
    expect(() => checkResponse(bodiless({ headers: { 'content-length': '2' } }))).toThrow(
      /Content-Length 2 where no content is declared/,
    );
  });

  it('still checks the headers of a bodiless answer', () => {
    const { 'x-request-id': _, ...withoutRequestId } = HEADERS;
    expect(() => checkResponse({ ...bodiless(), headers: new Headers(withoutRequestId) })).toThrow(
      /X-Request-Id is missing/,
    );
  });
});

describe('a bodiless answer through the local server', () => {
  let api: TestApi;
  beforeAll(async () => {
    const handlers = await loadFunctionHandlers();
    api = await startTestApi({
      ...handlers,
      getPet: httpOperation({ ...REQUEST_CHECKS, deprecation: GET_PET_DEPRECATION, handle: async () => noContent() }),
    });
  });
  afterAll(async () => api?.close());

  it('arrives as the document declares it: 204, no body, no Content-Type, no Content-Length', async () => {
    // `request` checks the answer against the document (test/support/api.ts).
    const answered = await api.request('GET', '/pets/1');
    expect(answered.status).toBe(204);
    expect(answered.text).toBe('');
    expect(answered.body).toBeUndefined();
    expect(answered.headers.get('content-type')).toBeNull();
    expect(answered.headers.get('content-length')).toBeNull();
    expect(answered.headers.get('x-request-id')).toMatch(/.+/);
  });
});
