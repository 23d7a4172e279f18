import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readJson } from '../../../../shared/http/json-text';

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
    expect(readJson(text)).toEqual({ repeated: { path, name } });
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
  ])('is not found in %s', (text) => {
    expect(readJson(text)).toEqual({ value: JSON.parse(text) });
  });
});

describe('a JSON number, judged as written (issue 36, finding 2)', () => {
  it.each([
    ['1.0', 1],
    ['1e0', 1],
    ['1E+0', 1],
    ['20E-1', 2],
    ['100e-2', 1],
    ['12.30e1', 123],
    ['0.0e5', 0],
    ['-0', -0],
    ['-2.0', -2],
    ['9007199254740991.0', 9007199254740991],
    ['9007199254740993', 9007199254740992],
    ['1.5', 1.5],
    ['1.5e0', 1.5],
    ['1e-300', 1e-300],
    ['1e400', Number.POSITIVE_INFINITY],
    ['1.00000000000000000001e20', 1e20],
    ['0.0e-1', 0],
    ['-0.00e-3', -0],
    ['000', undefined],
  ])('%s is read as JSON.parse reads it', (text, number) => {
    if (number === undefined)
      expect(readJson(text)).toBeUndefined(); // not JSON: a leading zero
    else expect(readJson(text)).toEqual({ value: number });
  });

  it.each([
    '0.99999999999999999',
    '3.0000000000000000001',
    '9007199254740990.9999',
    '1.00000000000000001',
    '-1.00000000000000001',
    '1e-400',
    '100000000000000000000.5',
    '1.00000000000000001e1',
    '5e-1000000000000000000000',
  ])('%s, not an integer as written though a double rounds it to one, is read as NaN', (text) => {
    expect(Number.isInteger(JSON.parse(text))).toBe(true);
    expect(readJson(text)).toEqual({ value: Number.NaN });
  });

  it('judges numbers with runs of digits as long as a body can hold (issue 49, finding 1: the run of zeros was read in quadratic time)', () => {
    const zeros = '0'.repeat(16_000);
    // A run of zeros that ends in another digit: no integer, however long the run.
    expect(readJson(`{"categoryId":1.${zeros}1}`)).toEqual({ value: { categoryId: Number.NaN } });
    expect(readJson(`{"x":{"categoryId":1.${zeros}1}}`)).toEqual({ value: { x: { categoryId: Number.NaN } } });
    // One that ends the number: an integer, as is one the exponent covers.
    expect(readJson(`{"categoryId":1.${zeros}}`)).toEqual({ value: { categoryId: 1 } });
    expect(readJson(`{"categoryId":1${zeros}e-16000}`)).toEqual({ value: { categoryId: 1 } });
    expect(readJson(`{"categoryId":1${zeros}e-16001}`)).toEqual({ value: { categoryId: 0.1 } }); // no integer, as a double reads it too
    expect(readJson(`{"categoryId":0.${zeros}}`)).toEqual({ value: { categoryId: 0 } });
    expect(readJson(`{"categoryId":${'9'.repeat(16_000)}}`)).toEqual({
      value: { categoryId: Number.POSITIVE_INFINITY },
    });
  });

  it('replaces each such number where it stands, at any depth, and nothing else', () => {
    const text =
      '{"a":{"b":[1,2.0,0.99999999999999999],"c":3.0000000000000000001},"d":[[1,2,3],{"e":1,"f":2},1.00000000000000001,1.0],"g":"1.00000000000000001"}';
    expect(readJson(text)).toEqual({
      value: {
        a: { b: [1, 2, Number.NaN], c: Number.NaN },
        d: [[1, 2, 3], { e: 1, f: 2 }, Number.NaN, 1],
        g: '1.00000000000000001',
      },
    });
  });

  it('reads a 64 KiB body of 15,000 nested arrays holding 4,800 such numbers in a heap of 96 MB (a Lambda has 512 MB): no path copied per number', () => {
    const text = `{"name":"x","categoryId":${'['.repeat(15_000)}${Array(4_800).fill('1e-400').join(',')}${']'.repeat(15_000)}}`;
    expect(text.length).toBeLessThan(65_536);
    const reading = readJson(text) as { value: { categoryId: unknown } };
    let innermost = reading.value.categoryId;
    for (let depth = 1; depth < 15_000; depth += 1) innermost = (innermost as unknown[])[0];
    expect(innermost).toEqual(Array(4_800).fill(Number.NaN));
    // The same in a process of its own whose heap cannot hold a copy of the path per number (about 600 MB).
    const script = `import { readJson } from './shared/http/json-text.ts';
      const text = '{"categoryId":' + '['.repeat(15000) + Array(4800).fill('1e-400').join(',') + ']'.repeat(15000) + '}';
      process.stdout.write(String(readJson(text) !== undefined));`;
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=96', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect([run.status, run.stdout]).toEqual([0, 'true']);
  });

  it('a member given twice is found before any number is replaced, whatever the first value held', () => {
    expect(readJson('{"a":{"b":[{"c":1.00000000000000001}]},"a":5}')).toEqual({ repeated: { path: [], name: 'a' } });
    expect(readJson('{"a":[[2.00000000000000001]],"a":[1]}')).toEqual({ repeated: { path: [], name: 'a' } });
    expect(readJson('{"a":{"b":[3.00000000000000001]},"a":null}')).toEqual({ repeated: { path: [], name: 'a' } });
  });

  it('an own member named __proto__ is replaced like any other, and no prototype changes', () => {
    const reading = readJson('{"__proto__":1.00000000000000001,"x":[{"__proto__":2.00000000000000001}]}');
    const value = (reading as { value: unknown }).value as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBeNaN();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor((value.x as object[])[0], '__proto__')?.value).toBeNaN();
  });

  it('a text that is not JSON is undefined', () => {
    expect(readJson('{"a":1,}')).toBeUndefined();
    expect(readJson('')).toBeUndefined();
  });
});
