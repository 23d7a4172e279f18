import { describe, expect, it } from 'vitest';
import { readBearer, readBearerHeaders } from '../../../../shared/auth/bearer';

describe('readBearer', () => {
  it.each([undefined, '', '   '])('treats %j as no credential', (header) => {
    expect(readBearer(header)).toEqual({ kind: 'missing' });
  });

  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER  a.b-c_d~e+f/g==', 'a.b-c_d~e+f/g=='],
    ['Bearer local-free-key', 'local-free-key'],
  ])('reads %j', (header, token) => {
    expect(readBearer(header)).toEqual({ kind: 'token', token });
  });

  it.each([
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearer ä',
    'Bearerabc',
    'Token abc',
    `Bearer ${'a'.repeat(600)}`,
    'Bearer =abc',
    'Basic Bearer abc',
    'x Bearer abc',
  ])('calls %j malformed', (header) => {
    expect(readBearer(header)).toEqual({ kind: 'malformed' });
  });

  it('reads a header of up to 528 characters (room for a 512-character key, its scheme and spaces), and calls a longer one malformed', () => {
    expect(readBearer(`Bearer ${'a'.repeat(521)}`)).toEqual({ kind: 'token', token: 'a'.repeat(521) });
    expect(readBearer(`Bearer ${'a'.repeat(522)}`)).toEqual({ kind: 'malformed' });
  });
});

describe('readBearerHeaders', () => {
  it('calls two Authorization headers malformed, whatever the first says; one is read as it is', () => {
    expect(readBearerHeaders(2, 'Bearer abc')).toEqual({ kind: 'malformed' });
    expect(readBearerHeaders(3, undefined)).toEqual({ kind: 'malformed' });
    expect(readBearerHeaders(1, 'Bearer abc')).toEqual({ kind: 'token', token: 'abc' });
    expect(readBearerHeaders(0, undefined)).toEqual({ kind: 'missing' });
  });
});
