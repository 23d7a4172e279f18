import { describe, expect, it } from 'vitest';
import { readBearer } from '../../shared/auth/bearer';

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

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearer ä', 'Bearerabc', 'Token abc', `Bearer ${'a'.repeat(600)}`, 'Bearer =abc', 'Basic Bearer abc', 'x Bearer abc'])(
    'calls %j malformed',
    (header) => {
      expect(readBearer(header)).toEqual({ kind: 'malformed' });
    },
  );
});
