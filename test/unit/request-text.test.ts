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
    // White space between a name and its colon, as JSON allows.
    ['{"a" : 1, "a" \n\t: 2}', [], 'a'],
    // An array closed before the duplicate: the names are the object's again.
    ['{"list":[1,[2]],"b":1,"b":2}', [], 'b'],
    ['{"a":{"x":[]},"a":2}', [], 'a'],
    // Escaped quotes and backslashes inside a name.
    ['{"a\\"b":1,"a\\"b":2}', [], 'a"b'],
    ['{"c\\\\":1,"c\\\\":2}', [], 'c\\'],
  ])('is found in %s', (text, path, name) => {
    expect(repeatedMember(text)).toEqual({ path, name });
  });

  it.each([
    '{"a":1,"b":2}',
    '{"a":{"a":1}}',
    '[{"a":1},{"a":2}]',
    '{"a":"\\"a\\":{","b":"}"}',
    '"a"',
    '1',
    '{"a":[1,"a",{"b":"a"}]}',
    // A value that spells a member's name is no member: a pet named "categoryId".
    '{"name":"categoryId","categoryId":1}',
    '{"name" : "status" , "status" : "sold"}',
    // A name ending in an escaped backslash, then another name.
    '{"c\\\\":1,"d":2}',
  ])(
    'is not found in %s',
    (text) => {
      JSON.parse(text);
      expect(repeatedMember(text)).toBeUndefined();
    },
  );
});
