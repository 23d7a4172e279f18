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
 * looks; the scan walks only strings, brackets, commas and numbers (JSON.parse has checked the
 * rest), in time linear in the text whatever its nesting.
 */
export type JsonReading =
  | { readonly value: unknown; readonly repeated?: undefined }
  | { readonly repeated: { readonly path: readonly string[]; readonly name: string } };

/** A string with its escapes, a bracket, a comma, or a number. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\],]|-?\d[\d.eE+-]*/g;
/** What follows a string that is a member's name. */
const NAME_END = /\s*:/y;
/** A JSON number's parts (the scan gives whole numbers only, so no anchor is needed). */
const NUMBER_PARTS = /-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/;

/**
 * An open object or array of the text, beside the value `JSON.parse` made of it: an object's names
 * so far and the member being read, or an array's element being read.
 */
interface Open {
  readonly names: Set<string> | undefined;
  /** What JSON.parse made of it (while a member is given twice, possibly another value). */
  readonly value: unknown;
  /** (Set from an object's first name on, before any of its values.) */
  name?: string;
  index: number;
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
  // Where the numbers rounded to an integer stand: in which object or array, under which key.
  const rounded: [container: object, key: string | number][] = [];
  TOKENS.lastIndex = 0;
  for (let match = TOKENS.exec(text); match !== null; match = TOKENS.exec(text)) {
    const [token] = match;
    const inner = open.at(-1);
    if (token === '{' || token === '[') {
      open.push({
        names: token === '{' ? new Set() : undefined,
        value: inner === undefined ? value : valueIn(inner),
        index: 0,
      });
    } else if (token === '}' || token === ']') open.pop();
    else if (token === ',') (inner as Open).index += 1;
    else if (token[0] === '"') {
      NAME_END.lastIndex = TOKENS.lastIndex;
      // A value, not a name. (Only an object's names are followed by a colon.)
      if (!NAME_END.test(text)) continue;
      const { names } = inner as Open & { names: Set<string> };
      const name = JSON.parse(token) as string;
      if (names.has(name))
        return {
          repeated: {
            path: open
              .slice(0, -1)
              .map((container) => (container.names === undefined ? '[]' : (container.name as string))),
            name,
          },
        };
      names.add(name);
      (inner as Open).name = name;
    } else if (Number.isInteger(Number(token)) && !isIntegerAsWritten(token)) {
      if (inner === undefined) return { value: Number.NaN };
      rounded.push([inner.value as object, keyIn(inner)]);
    }
  }
  // Only now: until the scan is over, a member given twice may have shown another value's containers.
  // Defined, not assigned: an own member named `__proto__` is a member like any other here.
  for (const [container, key] of rounded) Object.defineProperty(container, key, { value: Number.NaN });
  return { value };
}

/** The key under which the value being read in `open` stands: an object's member name, an array's index. */
const keyIn = (open: Open): string | number => (open.names === undefined ? open.index : (open.name as string));

/** The value being read in `open`, as JSON.parse made it (undefined where a repeated member made it another). */
function valueIn(open: Open): unknown {
  const container = open.value;
  return typeof container === 'object' && container !== null
    ? (container as Record<string | number, unknown>)[keyIn(open)]
    : undefined;
}

const ZERO = 0x30; // '0'

/** Whether a JSON number's decimal value, as written, is an integer (JSON Schema's `integer`). */
function isIntegerAsWritten(number: string): boolean {
  const [, whole, fraction, exponent] = NUMBER_PARTS.exec(number) as RegExpExecArray;
  const decimals = fraction?.length ?? 0;
  // The value is `digits` times ten to the power of `exponent - decimals`.
  const digits = `${whole}${fraction ?? ''}`;
  // Counted from the end, not by a pattern anchored at it (/0+$/), which tries every run of zeros
  // from each of its starts: quadratic in a run of zeros that ends in another digit.
  let end = digits.length;
  // (At 0, charCodeAt(-1) is NaN: the loop stops.)
  while (digits.charCodeAt(end - 1) === ZERO) end -= 1;
  if (end === 0) return true; // zero
  return Number(exponent ?? 0) - decimals + (digits.length - end) >= 0;
}
