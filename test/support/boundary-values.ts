import fc from 'fast-check';
import { MAX_ID, NAME_MAX_LENGTH, PAGE_SIZE, PET_STATUSES } from '../../shared/pets/fields';

/**
 * fast-check arbitraries for the values of the pet store's requests, drawn near and across every
 * boundary the schemas state: lengths and trimmed lengths, white space of every kind, integer
 * ranges and the ways an integer can be written, enums, unknown and missing fields, wrong types.
 * Values meant for JSON bodies are JSON text, so that a number can be written as `1.0` or `1e0`.
 */

/** Every white space code point of ECMAScript (what trim removes). */
export const WHITE_SPACE = [
  0x09,
  0x0a,
  0x0b,
  0x0c,
  0x0d,
  0x20,
  0xa0,
  0x1680,
  ...range(0x2000, 0x200a),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
  0xfeff,
].map((code) => String.fromCodePoint(code));
/** Look like nothing but count as visible (not in the decisions' lists): Mongolian vowel separator, soft hyphen. */
const VISIBLE_NEAR_MISSES = ['\u180e', '\u00ad'];
/** Format characters: allowed in a name, but not a name alone (zero width space, non-joiner, joiner, word joiner). */
export const FORMAT_CHARACTERS = ['\u200b', '\u200c', '\u200d', '\u2060'];
/** Hidden characters a name may not hold: controls (C0, DEL, C1 with NEL) and bidirectional controls. */
export const HIDDEN_CHARACTERS = [
  '\u0000',
  '\u0007',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
];
/** Look like white space or nothing, but are not trimmed. */
export const NEAR_WHITE_SPACE = [...VISIBLE_NEAR_MISSES, ...FORMAT_CHARACTERS, ...HIDDEN_CHARACTERS];
const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];
/** One code point each, two UTF-16 units each (a length counted in units would count them twice). */
const ASTRAL = ['😀', '𝄞', '𠀋'];

/** A value one time in eight, else null (fc.option's `freq` is the other way round: null one time in freq). */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const solidCharacter = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '7', '-', 'é', 'ß', '名', '"', '\\') },
  { weight: 2, arbitrary: fc.constantFrom(...ASTRAL, ...VISIBLE_NEAR_MISSES, ...FORMAT_CHARACTERS) },
);
/** White space that is no control character: inside a name it stays (tab, line feed and the like are controls there, refused). */
const WHITE_SPACE_INSIDE = WHITE_SPACE.filter((character) => character > '\u001f');
const anyCharacter = fc.oneof(
  { weight: 4, arbitrary: solidCharacter },
  { weight: 2, arbitrary: fc.constantFrom(...WHITE_SPACE_INSIDE) },
);
const padding = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...WHITE_SPACE) },
    { weight: 1, arbitrary: fc.constantFrom(...VISIBLE_NEAR_MISSES, ...FORMAT_CHARACTERS) },
  ),
  {
    maxLength: 4,
  },
);
/** Lengths (in code points) at and around the edges of 1 to NAME_MAX_LENGTH. */
const nameLength = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, NAME_MAX_LENGTH - 1, NAME_MAX_LENGTH, NAME_MAX_LENGTH + 1, NAME_MAX_LENGTH + 2),
  fc.integer({ min: 0, max: NAME_MAX_LENGTH + 20 }),
);

/**
 * A name: padding around a core, whose ends are either solid (so its length is the trimmed length)
 * or anything at all, or now and then only format characters and white space; one name in eight
 * has a lone surrogate somewhere, and one in sixteen a hidden character.
 */
export const nameText: fc.Arbitrary<string> = fc
  .tuple(
    padding,
    nameLength.chain((length) =>
      fc.oneof(
        {
          weight: 1,
          arbitrary: fc.array(fc.constantFrom(...FORMAT_CHARACTERS, ...WHITE_SPACE), { minLength: 1, maxLength: 6 }),
        },
        { weight: 8, arbitrary: fc.array(anyCharacter, { minLength: length, maxLength: length }) },
        length < 2
          ? fc.array(solidCharacter, { minLength: length, maxLength: length })
          : fc
              .tuple(
                solidCharacter,
                fc.array(anyCharacter, { minLength: length - 2, maxLength: length - 2 }),
                solidCharacter,
              )
              .map(([first, inner, last]) => [first, ...inner, last]),
      ),
    ),
    padding,
    rarely(fc.tuple(fc.constantFrom(...LONE_SURROGATES), fc.nat())),
    // One name in sixteen: hidden characters are refused wherever they are, so more would leave few valid names.
    fc.oneof(
      { weight: 15, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...HIDDEN_CHARACTERS, '\t', '\n', '\r'), fc.nat()) },
    ),
  )
  .map(([before, core, after, surrogate, hidden]) => {
    const characters = [...before, ...core, ...after];
    if (surrogate !== null) characters.splice(surrogate[1] % (characters.length + 1), 0, surrogate[0]);
    if (hidden !== null) characters.splice(hidden[1] % (characters.length + 1), 0, hidden[0]);
    return characters.join('');
  });

/** A positive integer of [min, max] written in every way a reader might take for it (as text, not JSON). */
export function integerText(min: number, max: number): fc.Arbitrary<string> {
  const edges = [0, min - 1, min, min + 1, max - 1, max, max + 1, max + 2, max * 10, 10 ** 16, 10 ** 20].filter(
    (n) => n >= 0,
  );
  const value = fc.oneof(fc.constantFrom(...edges), fc.integer({ min, max }));
  const spelled = fc
    .tuple(
      value,
      fc.constantFrom<(n: number) => string>(
        (n) => `0${n}`,
        (n) => `00${n}`,
        (n) => `+${n}`,
        (n) => `-${n}`,
        (n) => `${n}.0`,
        (n) => `${n}.`,
        (n) => `${n}e0`,
        (n) => `${n * 10}e-1`,
        (n) => `${n}E+0`,
        (n) => `0x${n.toString(16)}`,
        (n) => `0b${n.toString(2)}`,
        (n) => `0o${n.toString(8)}`,
        (n) => ` ${n}`,
        (n) => `${n} `,
        (n) => `\t${n}\n`,
        (n) => `${n}.5`,
        (n) => `${n}a`,
        (n) => `${n}`.replace(/[0-9]/g, (digit) => String.fromCharCode(0x0660 + Number(digit))), // Arabic-Indic digits
      ),
    )
    .map(([n, spell]) => spell(n));
  const other = fc.constantFrom(
    '',
    ' ',
    'abc',
    'Infinity',
    '-Infinity',
    '1e400',
    `1${'0'.repeat(400)}`,
    'NaN',
    'null',
    'true',
    '1_0',
    '٣',
    '1,5',
  );
  return fc.oneof(
    { weight: 5, arbitrary: value.map(String) },
    { weight: 4, arbitrary: spelled },
    { weight: 1, arbitrary: other },
  );
}

/** `limit` of listPets as query text. */
export const limitText = integerText(PAGE_SIZE.min, PAGE_SIZE.max);
/** `petId` of getPet as path text. */
export const petIdText = integerText(1, MAX_ID);

/** A status as text: the values, their near misses, nothing at all. */
export const statusText = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...PET_STATUSES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('Available', 'SOLD', 'sold ', ' pending', 'availabl', 'unknown', '', 'null'),
  },
);

/** categoryId as JSON text: integers at the edges of 1 to 2^53-1, integral numbers written otherwise, numbers a double rounds to an integer, and other types. */
export const categoryIdJson = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .oneof(
        fc.constantFrom(-1, 0, 1, 2, MAX_ID - 1, MAX_ID, MAX_ID + 1, MAX_ID + 3),
        fc.integer({ min: 1, max: 1_000_000 }),
      )
      .map(String),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '1.0',
      '1e0',
      '1E+0',
      '10e-1',
      '-0',
      '0.5',
      '1.5',
      '9007199254740991.0',
      '9007199254740993',
      '1e300',
      '1e-300',
      '2.0e1',
    ),
  },
  // Judged as written: integers that do not look it, and non-integers that a double rounds to one.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '20E-1',
      '100e-2',
      '12.30e1',
      '0.99999999999999999',
      '1.00000000000000001',
      '3.0000000000000000001',
      '9007199254740990.9999',
      '9007199254740991.00000000000000000001',
      '1e-400',
      '2.00000000000000001e0',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('"1"', 'null', 'true', '[]', '{}', '[1]', '""') },
);

/** status as JSON text. */
export const statusJson = fc.oneof(
  { weight: 4, arbitrary: statusText.map((status) => JSON.stringify(status)) },
  { weight: 1, arbitrary: fc.constantFrom('null', '1', '["sold"]', 'false') },
);

/** A name as JSON text: mostly a string, sometimes another type. */
export const nameJson = fc.oneof(
  { weight: 8, arbitrary: nameText.map((name) => JSON.stringify(name)) },
  { weight: 1, arbitrary: fc.constantFrom('null', '1', 'true', '["Rex"]', '{"first":"Rex"}') },
);

/** Field names the body does not have, some close to those it has. */
export const unknownFieldName = fc.constantFrom(
  'staus',
  'Name',
  'id',
  '__proto__',
  'constructor',
  '',
  'categoryID',
  'name ',
);

/**
 * A createPet body as JSON text: each field present or missing, in any order, unknown fields
 * sometimes, JSON white space between tokens, sometimes a leading byte order mark; now and then
 * not an object at all. No member name is given twice (the service refuses that, which no schema
 * can state; see its own test).
 */
export const newPetJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.option(nameJson, { freq: 10 }),
    fc.option(categoryIdJson, { freq: 10 }),
    fc.option(statusJson, { freq: 2 }),
    rarely(fc.tuple(unknownFieldName, fc.oneof(statusJson, nameJson))),
    fc.constantFrom('', ' ', '\n\t', '\r\n '),
    fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant('\ufeff') }),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant('object') },
      { weight: 1, arbitrary: fc.constantFrom('array', 'null', 'string') },
    ),
  )
  .chain(([name, categoryId, status, unknown, space, byteOrderMark, shape]) => {
    const members: [string, string][] = [];
    if (name !== null) members.push(['name', name]);
    if (categoryId !== null) members.push(['categoryId', categoryId]);
    if (status !== null) members.push(['status', status]);
    if (unknown !== null) members.push(unknown);
    return fc.shuffledSubarray(members, { minLength: members.length, maxLength: members.length }).map((ordered) => {
      const object = `{${space}${ordered.map(([key, value]) => `${JSON.stringify(key)}${space}:${space}${value}`).join(`,${space}`)}${space}}`;
      return (
        byteOrderMark +
        (shape === 'object'
          ? object
          : shape === 'array'
            ? `[${object}]`
            : shape === 'null'
              ? 'null'
              : JSON.stringify(object))
      );
    });
  });
