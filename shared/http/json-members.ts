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
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i += 1; i < text.length && text.charCodeAt(i) !== 0x22; i += 1) if (text.charCodeAt(i) === 0x5c /* \ */) i += 1;
      const names = open.at(-1);
      if (names === undefined) continue;
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next += 1;
      if (text.charCodeAt(next) !== 0x3a /* : */) continue;
      const name = JSON.parse(text.slice(start, i + 1)) as string;
      if (names.has(name)) return { path: [...path], name };
      names.add(name);
      lastName = name;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (open.length > 0) path.push(open.at(-1) === undefined ? '[]' : (lastName ?? ''));
      open.push(c === 0x7b ? new Set() : undefined);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      path.pop();
    }
  }
  return undefined;
}
