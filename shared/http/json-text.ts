/** A string with its escapes, or a bracket: all the scan looks at (JSON.parse has checked the rest). */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\]]/g;
/** What follows a string that is a member's name. */
const NAME_END = /\s*:/y;

/**
 * The first member name that an object of this JSON text gives twice, at any depth, or undefined.
 * I-JSON (RFC 7493) forbids them, and `JSON.parse` silently keeps the last. Call it on text that
 * `JSON.parse` accepted: it only walks strings and brackets, and reads names as JSON does (so
 * `"stat\u0075s"` is `status`).
 */
export function repeatedMember(text: string): { readonly path: readonly string[]; readonly name: string } | undefined {
  // One entry per open bracket: the names of an object so far, or undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  const path: string[] = [];
  let lastName: string | undefined;
  TOKENS.lastIndex = 0;
  for (let match = TOKENS.exec(text); match !== null; match = TOKENS.exec(text)) {
    const [token] = match;
    if (token === '{' || token === '[') {
      // (In an object, a value follows its name: lastName is that name.)
      if (open.length > 0) path.push(open.at(-1) === undefined ? '[]' : (lastName as string));
      open.push(token === '{' ? new Set() : undefined);
    } else if (token === '}' || token === ']') {
      open.pop();
      path.pop();
    } else {
      NAME_END.lastIndex = TOKENS.lastIndex;
      // A value, not a name. (Only an object's names are followed by a colon.)
      if (!NAME_END.test(text)) continue;
      const names = open.at(-1) as Set<string>;
      const name = JSON.parse(token) as string;
      if (names.has(name)) return { path: [...path], name };
      names.add(name);
      lastName = name;
    }
  }
  return undefined;
}
