import { describe, expect, it } from 'vitest';
import { checkResponse, type ObservedResponse } from '../support/contract';

/** The checker every HTTP test goes through must itself refuse what the document does not describe. */
const rateLimitHeaders = {
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
  'x-ratelimit-reset': '1795305660',
  'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  ratelimit: '"minute";r=59;t=60',
  'x-request-id': 'req-1',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-type': 'application/json',
};
const pet = { id: 1, name: 'Rex', categoryId: 2, status: 'available' };

function response(
  overrides: Partial<Omit<ObservedResponse, 'headers'>> & { headers?: Record<string, string | undefined> } = {},
): ObservedResponse {
  const headers = new Headers();
  for (const [name, value] of Object.entries({ ...rateLimitHeaders, ...overrides.headers }))
    if (value !== undefined) headers.set(name, value);
  return {
    method: 'GET',
    url: 'http://localhost:3000/v1/pets',
    status: 200,
    text: JSON.stringify([pet]),
    ...overrides,
    headers,
  };
}

describe('the response check against the interface description', () => {
  it('accepts a response the document describes', () => {
    expect(() => checkResponse(response())).not.toThrow();
    expect(() =>
      checkResponse(
        response({ method: 'POST', status: 201, text: JSON.stringify(pet), headers: { location: '/v1/pets/1' } }),
      ),
    ).not.toThrow();
  });

  it('refuses an undeclared status', () => {
    expect(() =>
      checkResponse(response({ status: 404, text: JSON.stringify({ code: 'not_found', message: 'x', status: 404 }) })),
    ).toThrow(/status 404 is not declared for listPets/);
  });

  it('refuses a drifted body: an extra field, a wrong type, an unknown error code', () => {
    expect(() => checkResponse(response({ text: JSON.stringify([{ ...pet, colour: 'brown' }]) }))).toThrow(
      /additional properties/,
    );
    expect(() => checkResponse(response({ text: JSON.stringify([{ ...pet, id: '1' }]) }))).toThrow(/must be integer/);
    expect(() =>
      checkResponse(response({ status: 400, text: JSON.stringify({ code: 'bad', message: 'x', status: 400 }) })),
    ).toThrow(/allowed values/);
  });

  it('refuses a missing or malformed required header, and a missing Location or deprecation header', () => {
    expect(() => checkResponse(response({ headers: { 'x-ratelimit-remaining': undefined } }))).toThrow(
      /X-RateLimit-Remaining is missing/,
    );
    expect(() => checkResponse(response({ headers: { 'x-ratelimit-limit': 'many' } }))).toThrow(/X-RateLimit-Limit/);
    expect(() =>
      checkResponse(
        response({ status: 429, text: JSON.stringify({ code: 'rate_limited', message: 'x', status: 429 }) }),
      ),
    ).toThrow(/Retry-After is missing/);
    expect(() => checkResponse(response({ method: 'POST', status: 201, text: JSON.stringify(pet) }))).toThrow(
      /Location is missing/,
    );
    expect(() =>
      checkResponse(response({ url: 'http://localhost:3000/v1/pets/1', text: JSON.stringify(pet) })),
    ).toThrow(/Deprecation is missing/);
  });

  it('covers the idempotent create: Idempotent-Replayed only as "true", Retry-After on 409, 409 and 422 on createPet only', () => {
    const created = { method: 'POST', status: 201, text: JSON.stringify(pet) };
    expect(() =>
      checkResponse(response({ ...created, headers: { location: '/v1/pets/1', 'idempotent-replayed': 'true' } })),
    ).not.toThrow();
    expect(() =>
      checkResponse(response({ ...created, headers: { location: '/v1/pets/1', 'idempotent-replayed': 'false' } })),
    ).toThrow(/Idempotent-Replayed/);
    const inProgress = {
      method: 'POST',
      status: 409,
      text: JSON.stringify({ code: 'idempotency_in_progress', message: 'x', status: 409 }),
    };
    expect(() => checkResponse(response({ ...inProgress, headers: { 'retry-after': '1' } }))).not.toThrow();
    expect(() => checkResponse(response(inProgress))).toThrow(/Retry-After is missing/);
    const reused = { status: 422, text: JSON.stringify({ code: 'idempotency_key_reused', message: 'x', status: 422 }) };
    expect(() => checkResponse(response({ ...reused, method: 'POST' }))).not.toThrow();
    expect(() => checkResponse(response(reused))).toThrow(/status 422 is not declared for listPets/);
  });

  it('checks answers to unknown routes and gateway refusals as Error bodies', () => {
    expect(() =>
      checkResponse(
        response({
          url: 'http://localhost:3000/v1/owners',
          status: 404,
          text: JSON.stringify({ code: 'not_found', message: 'x', status: 404 }),
        }),
      ),
    ).not.toThrow();
    expect(() =>
      checkResponse(
        response({
          url: 'http://localhost:3000/v1/owners',
          status: 404,
          text: 'Not Found',
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    ).toThrow(/Content-Type/);
    expect(() => checkResponse(response({ status: 400, text: '{"message":"Forbidden"}' }), 'gateway')).toThrow(
      /required property/,
    );
  });
});
