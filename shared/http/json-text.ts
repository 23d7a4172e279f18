/**
 * A JSON text read as I-JSON (RFC 7493) and JSON Schema read it, where `JSON.parse` alone does not:
 * - a member name given twice in an object, at any depth, is found (`JSON.parse` silently keeps
 *   the last);
 * - a number is judged as written: one that a double rounds to an integer although it is written
 *   as a non-integer (`0.99999999999999999`, `3.0000000000000000001`, `1e-400`) is read as NaN, a
 *   number that is no integer, so that every check made for an integer refuses it as it refuses
 *   `1.5`. `1.0`, `1e0` and `20E-1` are integers, as written and as read. (No field of this API
 *   takes a number that may be fractional; one that did would need the double instead.)
 *
 * Names and numbers are taken from the text, since `JSON.parse` has lost both by the time a schema
 * looks; the scan walks only strings, brackets, commas and numbers (JSON.parse has checked the rest).
 */
export type JsonReading =
  | { readonly value: unknown; readonly repeated?: undefined }
  | { readonly repeated: { readonly path: readonly string[]; readonly name: string } };

/** A string with its escapes, a bracket, a comma, or a number. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\],]|-?\d[\d.eE+-]*/g;
/** What follows a string that is a member's name. */
const NAME_END = /\s*:/y;
/** A number written with digits alone: an integer, as written and as read (up to 2^53, and beyond it a double's rounding). */
const DIGITS_ONLY = /^-?\d+$/;
const NUMBER_PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** An open object (its names so far, and the member being read) or array (the element being read). */
interface Open {
  readonly names: Set<string> | undefined;
  at: string | number;
}

/** The value of a JSON text, or the member it repeats; undefined when the text is not JSON. */
export function readJson(text: string): JsonReading | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const open: Open[] = [];
  // Where the numbers rounded to an integer are: each a path of member names and element indexes.
  const rounded: (string | number)[][] = [];
  TOKENS.lastIndex = 0;
  for (let match = TOKENS.exec(text); match !== null; match = TOKENS.exec(text)) {
    const [token] = match;
    const inner = open.at(-1);
    if (token === '{' || token === '[') open.push({ names: token === '{' ? new Set() : undefined, at: 0 });
    else if (token === '}' || token === ']') open.pop();
    else if (token === ',') {
      if ((inner as Open).names === undefined) (inner as Open).at = ((inner as Open).at as number) + 1;
    } else if (token.startsWith('"')) {
      NAME_END.lastIndex = TOKENS.lastIndex;
      // A value, not a name. (Only an object's names are followed by a colon.)
      if (!NAME_END.test(text)) continue;
      const names = (inner as Open).names as Set<string>;
      const name = JSON.parse(token) as string;
      if (names.has(name)) return { repeated: { path: open.slice(0, -1).map((container) => (container.names === undefined ? '[]' : String(container.at))), name } };
      names.add(name);
      (inner as Open).at = name;
    } else if (!DIGITS_ONLY.test(token) && Number.isInteger(Number(token)) && !isIntegerAsWritten(token)) {
      rounded.push(open.map((container) => container.at));
    }
  }
  for (const path of rounded) value = replaced(value, path, Number.NaN);
  return { value };
}

/** Whether a JSON number's decimal value, as written, is an integer (JSON Schema's `integer`). */
function isIntegerAsWritten(number: string): boolean {
  const [, whole, fraction = '', exponent = '0'] = NUMBER_PARTS.exec(number) as RegExpExecArray;
  // The value is `digits` times ten to the power of `exponent - fraction.length`.
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length;
  return digits === '' || Number(exponent) - fraction.length + trailingZeros >= 0;
}

/** `value` with the value at `path` set to `by` (a path of length 0: `by` itself). */
function replaced(value: unknown, path: readonly (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  let container = value as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) container = container[key] as Record<string | number, unknown>;
  // Defined, not assigned: an own member named `__proto__` is a member like any other here.
  Object.defineProperty(container, path.at(-1) as string | number, { value: by });
  return value;
}
