import { describe, expect, it } from 'vitest';
import { requestHeader, requestHeaderCount, requestHeaderValues } from '../../../../shared/http/headers';

/** Header names are case-insensitive (RFC 9110), and API Gateway passes them as the client spelled them. */
describe('requestHeader', () => {
  it('finds a header whatever case the client wrote its name in', () => {
    expect(requestHeader({ authorization: 'Bearer a' }, 'authorization')).toBe('Bearer a');
    expect(requestHeader({ Authorization: 'Bearer b' }, 'authorization')).toBe('Bearer b');
    expect(requestHeader({ AUTHORIZATION: 'Bearer c' }, 'authorization')).toBe('Bearer c');
    expect(requestHeader({ 'Content-Type': 'application/json', Host: 'x' }, 'content-type')).toBe('application/json');
    expect(requestHeader({ 'x-forwarded-proto': 'https' }, 'x-forwarded-proto')).toBe('https');
    expect(requestHeader({ 'X-Forwarded-Proto': 'https' }, 'x-forwarded-proto')).toBe('https');
    expect(requestHeader({ 'x-FORWARDED-proto': 'https' }, 'x-forwarded-proto')).toBe('https');
    // The canonical spelling of each name is made once and kept: asked again, it is found the same way.
    expect(requestHeader({ 'X-Forwarded-Proto': 'http' }, 'x-forwarded-proto')).toBe('http');
  });

  it('answers the lower-case spelling before the canonical one, and either before any other, even an empty value', () => {
    expect(requestHeader({ 'Content-Type': 'b', 'content-type': 'a' }, 'content-type')).toBe('a');
    expect(requestHeader({ 'CONTENT-TYPE': 'c', 'Content-Type': '' }, 'content-type')).toBe('');
    expect(requestHeader({ 'CONTENT-TYPE': 'c', 'content-type': '' }, 'content-type')).toBe('');
  });

  it("tries a name's canonical spelling (X-Forwarded-Proto) before comparing every name", () => {
    // A name this process has not asked for yet: its canonical spelling is made now, not taken from
    // the cache of an earlier request.
    const word = () =>
      Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
    const name = `${word()}-${word()}`;
    const canonical = name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
    expect(requestHeader({ [name.toUpperCase()]: 'upper', [canonical]: 'canonical' }, name)).toBe('canonical');
  });

  it('answers undefined for a header that is absent, or for no headers at all', () => {
    expect(
      requestHeader(
        { 'X-Authorization': 'Bearer a', Authorizatio: 'b', Authorizationx: 'c', Authorizatiom: 'd' },
        'authorization',
      ),
    ).toBeUndefined();
    expect(requestHeader({}, 'authorization')).toBeUndefined();
    expect(requestHeader(null, 'authorization')).toBeUndefined();
    expect(requestHeader(undefined, 'authorization')).toBeUndefined();
  });
});

describe('requestHeaderValues and requestHeaderCount', () => {
  const sent = {
    'Idempotency-Key': ['a', 'b'],
    'idempotency-key': ['c'],
    'X-Idempotency-Key': ['x'],
    'Idempotency-Keys': ['y'],
    'Idempotency-Kex': ['z'],
    Accept: ['*/*'],
  };

  it('give every value of a header, in every spelling, and how many there were', () => {
    expect(requestHeaderValues(sent, 'idempotency-key')).toEqual(['a', 'b', 'c']);
    expect(requestHeaderCount(sent, 'idempotency-key')).toBe(3);
    expect(requestHeaderValues(sent, 'accept')).toEqual(['*/*']);
    expect(requestHeaderCount(sent, 'accept')).toBe(1);
  });

  it('give none for a header not sent, a name with no values, or no headers at all', () => {
    for (const headers of [{}, { Accept: ['*/*'] }, { 'Idempotency-Key': undefined }, null, undefined]) {
      expect(requestHeaderValues(headers, 'idempotency-key')).toEqual([]);
      expect(requestHeaderCount(headers, 'idempotency-key')).toBe(0);
    }
  });
});
