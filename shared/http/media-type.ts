/**
 * A `Content-Type` value read as RFC 9110 (section 8.3.1) writes it, strictly: `type/subtype`,
 * then parameters `; name=value` where the value is a token or a quoted string. A header that
 * does not parse (an unterminated quote, a stray character, a parameter given twice, in any case)
 * is undefined, never guessed at, and so is a parameter without its value (`; charset`,
 * `; charset=`) or its name (`; =utf-8`). Empty parameters (`;;`) are allowed by the grammar.
 */
export interface MediaType {
  /** Lower-case `type/subtype`. */
  readonly type: string;
  /** Parameter names lower-case; quoted values unquoted. */
  readonly parameters: Readonly<Record<string, string>>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
const MEDIA = new RegExp(`^(${TOKEN})/(${TOKEN})`, 'y');
const PARAMETER = new RegExp(`[\\t ]*;[\\t ]*(?:(${TOKEN})=(?:(${TOKEN})|(${QUOTED})))?`, 'y');
const TRAILING_SPACE = /[\t ]*/y;

export function parseMediaType(header: string): MediaType | undefined {
  MEDIA.lastIndex = 0;
  const media = MEDIA.exec(header);
  if (media === null) return undefined;
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  const named = new Set<string>();
  let at = MEDIA.lastIndex;
  PARAMETER.lastIndex = at;
  // Each match starts with `;`, so each moves on; none is left at the end of the header.
  for (let parameter = PARAMETER.exec(header); parameter !== null; parameter = PARAMETER.exec(header)) {
    at = PARAMETER.lastIndex;
    const [, rawName, token, quoted] = parameter;
    if (rawName === undefined) continue;
    const name = rawName.toLowerCase();
    if (named.has(name)) return undefined;
    named.add(name);
    // A parameter has a token or a quoted value, never both.
    parameters[name] = token ?? (quoted as string).slice(1, -1).replace(/\\(.)/g, '$1');
  }
  TRAILING_SPACE.lastIndex = at;
  TRAILING_SPACE.exec(header);
  if (TRAILING_SPACE.lastIndex !== header.length) return undefined;
  return { type: `${media[1]}/${media[2]}`.toLowerCase(), parameters };
}
