import { describe, expect, it } from 'vitest';
import { repeatedMember } from '../../shared/http/json-members';
import { parseMediaType } from '../../shared/http/media-type';

describe('a Content-Type value, read strictly (RFC 9110)', () => {
  it.each([
    ['application/json', 'application/json', {}],
    ['Application/JSON; charset=UTF-8', 'application/json', { charset: 'UTF-8' }],
    ['application/json ; charset="utf-8"', 'application/json', { charset: 'utf-8' }],
    ['application/json;charset="a\\"b"', 'application/json', { charset: 'a"b' }],
    ['application/json; ;;; charset', 'application/json', {}],
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
    'application',
    '/json',
    ' application/json',
    '',
  ])('refuses %j', (header) => {
    expect(parseMediaType(header)).toBeUndefined();
  });
});

describe('a JSON member given twice', () => {
  it.each([
    ['{"a":1,"a":2}', [], 'a'],
    ['{"a":1,"\\u0061":2}', [], 'a'],
    ['{"a":{"b":1,"b":2}}', ['a'], 'b'],
    ['{"a":[{"b":1},{"c":1,"c":2}]}', ['a', '[]'], 'c'],
  ])('is found in %s', (text, path, name) => {
    expect(repeatedMember(text)).toEqual({ path, name });
  });

  it.each(['{"a":1,"b":2}', '{"a":{"a":1}}', '[{"a":1},{"a":2}]', '{"a":"\\"a\\":{","b":"}"}', '"a"', '1', '{"a":[1,"a",{"b":"a"}]}'])(
    'is not found in %s',
    (text) => {
      JSON.parse(text);
      expect(repeatedMember(text)).toBeUndefined();
    },
  );
});
