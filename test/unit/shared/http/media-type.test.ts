import { describe, expect, it } from 'vitest';
import { parseMediaType } from '../../../../shared/http/media-type';

describe('a Content-Type value, read strictly (RFC 9110)', () => {
  it.each([
    ['application/json', 'application/json', {}],
    ['Application/JSON; charset=UTF-8', 'application/json', { charset: 'UTF-8' }],
    ['application/json ; charset="utf-8"', 'application/json', { charset: 'utf-8' }],
    ['application/json;charset="a\\"b"', 'application/json', { charset: 'a"b' }],
    ['application/json; ;;; charset=utf-8;', 'application/json', { charset: 'utf-8' }],
    ['application/json;', 'application/json', {}],
    ['application/json; q=1; Level=2  ', 'application/json', { q: '1', level: '2' }],
  ])('reads %j', (header, type, parameters) => {
    expect(parseMediaType(header)).toEqual({ type, parameters });
  });

  it.each([
    'application/json; charset="latin1',
    'application/json; charset=utf-8; charset=utf-8',
    'application/json; charset=a; CHARSET=b',
    'application/json, text/plain',
    'application/json; charset=ü',
    'application/json; charset="x" y',
    // A parameter is `name=value` (RFC 9110): a name without its value, or a value without its name, is no parameter (issue 36, finding 3).
    'application/json; charset',
    'application/json; charset=',
    'application/json; =utf-8',
    'application/json; charset ; q=1',
    'application/json; ;;; charset',
    'application/json; charset="utf-8"; level',
    'application',
    '/json',
    ' application/json',
    '',
  ])('refuses %j', (header) => {
    expect(parseMediaType(header)).toBeUndefined();
  });
});
