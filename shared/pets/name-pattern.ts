import { NAME_MAX_LENGTH } from './fields';

/**
 * The rule on a new pet's name as one regular expression, for the interface description (JSON
 * Schema's `pattern`: ECMA-262 with Unicode semantics, as JSON Schema 2020-12 asks): 1 to
 * NAME_MAX_LENGTH characters (code points) once white space is trimmed from both ends, and no
 * lone surrogate anywhere. The service checks the same rule step by step (PetName in schema.ts),
 * to say which part failed; test/unit/name-pattern.test.ts proves the two agree.
 */

/**
 * ECMAScript's WhiteSpace and LineTerminator spelled out, so that a reader sees the set: exactly
 * what String.prototype.trim removes, which the test checks code point by code point. U+0085,
 * U+180E and U+200B are not in it. Written with \u escapes rather than `\v` or `\f`, which some
 * other regex dialects read as wider classes (PCRE's and Java's `\v` includes U+0085).
 */
export const WHITE_SPACE_CLASS = '\\t\\n\\u000b\\u000c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const LONE_SURROGATES = '\\ud800-\\udfff';

const space = `[${WHITE_SPACE_CLASS}]`;
/** Any code point but white space and a lone surrogate: what a trimmed name starts and ends with. */
const edge = `[^${WHITE_SPACE_CLASS}${LONE_SURROGATES}]`;
/** Any code point but a lone surrogate (with the `u` flag a surrogate pair is one code point). */
const inner = `[^${LONE_SURROGATES}]`;

// A plain group, not `(?:`: JSON Schema recommends a subset of ECMA-262 that has only the plain one.
export const NAME_PATTERN = `^${space}*${edge}(${inner}{0,${NAME_MAX_LENGTH - 2}}${edge})?${space}*$`;
