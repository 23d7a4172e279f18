import { NAME_MAX_LENGTH } from './fields';

/**
 * The rule on a new pet's name as regular expressions, for the interface description (JSON
 * Schema's `pattern`: ECMA-262 with Unicode semantics, as JSON Schema 2020-12 asks): 1 to
 * NAME_MAX_LENGTH characters (code points) once white space is trimmed from both ends, no lone
 * surrogate and no hidden character anywhere in it, and at least one visible character. The service checks the same rule step by step (PetName in schema.ts),
 * to say which part failed; test/unit/shared/pets/name-pattern.test.ts proves the two agree.
 */

/**
 * ECMAScript's WhiteSpace and LineTerminator spelled out, so that a reader sees the set: exactly
 * what String.prototype.trim removes, which the test checks code point by code point. U+0085,
 * U+180E and U+200B are not in it. Written with \u escapes rather than `\v` or `\f`, which some
 * other regex dialects read as wider classes (PCRE's and Java's `\v` includes U+0085).
 */
export const WHITE_SPACE_CLASS =
  '\\t\\n\\u000b\\u000c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const LONE_SURROGATES = '\\ud800-\\udfff';
/**
 * Hidden characters a name may not hold (decisions.md): control characters (C0, DEL, C1, U+0085
 * among them) and bidirectional controls, which can make a name show as another. The white space
 * among the C0 controls (tab, line feed, ...) may pad a name: it is trimmed.
 */
export const HIDDEN_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** Format characters: allowed (an emoji's joiners), but a name of nothing else shows as empty. */
export const FORMAT_CLASS = '\\u200b-\\u200d\\u2060\\ufeff';

const space = `[${WHITE_SPACE_CLASS}]`;
/** Any code point but white space, a hidden character and a lone surrogate: what a trimmed name starts and ends with. */
const edge = `[^${WHITE_SPACE_CLASS}${HIDDEN_CLASS}${LONE_SURROGATES}]`;
/** Any code point but a hidden character and a lone surrogate (with the `u` flag a surrogate pair is one code point). */
const inner = `[^${HIDDEN_CLASS}${LONE_SURROGATES}]`;

// A plain group, not `(?:`: JSON Schema recommends a subset of ECMA-262 that has only the plain one.
export const NAME_PATTERN = `^${space}*${edge}(${inner}{0,${NAME_MAX_LENGTH - 2}}${edge})?${space}*$`;

/**
 * The rest of the rule, as a second pattern (JSON Schema's `pattern` is not anchored: the text
 * must hold one such character somewhere): a visible character, i.e. none of white space, format,
 * hidden or a lone surrogate. Apart, because "holds one" and "1 to 100 in all" make no single
 * pattern without a lookahead, which JSON Schema's recommended subset of ECMA-262 has not.
 */
export const VISIBLE_CHARACTER_PATTERN = `[^${WHITE_SPACE_CLASS}${FORMAT_CLASS}${HIDDEN_CLASS}${LONE_SURROGATES}]`;

/** Both patterns, as the interface description states them (`allOf`). */
export const NAME_PATTERNS = [NAME_PATTERN, VISIBLE_CHARACTER_PATTERN] as const;
