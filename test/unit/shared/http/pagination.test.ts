import { describe, expect, it } from 'vitest';
import { nextPageHeaders } from '../../../../shared/http/pagination';

/** The next page's link (RFC 8288), built from the request's own parameters (over HTTP: test/http/list-pets.test.ts). */
describe('nextPageHeaders', () => {
  it('links the same request, its parameters in the order given, the cursor added last', () => {
    expect(nextPageHeaders('https://api.example/v1/pets', { limit: 20, status: 'sold' }, 'abc')).toStrictEqual({
      Link: '<https://api.example/v1/pets?limit=20&status=sold&cursor=abc>; rel="next"',
    });
  });

  it('leaves out a parameter not given, and encodes every value', () => {
    expect(nextPageHeaders('https://api.example/v1/pets', { limit: 5, status: undefined }, 'a+b/c=')).toStrictEqual({
      Link: '<https://api.example/v1/pets?limit=5&cursor=a%2Bb%2Fc%3D>; rel="next"',
    });
  });

  it('has no link on the last page', () => {
    expect(nextPageHeaders('https://api.example/v1/pets', { limit: 5 }, undefined)).toStrictEqual({});
  });
});
