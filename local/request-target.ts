/**
 * The request target (RFC 9112, 3.2) as a URL, as far as Node's parser has let it through. A target
 * that begins with `/` (origin-form; or `\`, which a URL parser takes for `/`) is a path and query
 * of this server's own: `//a/b` is an absolute path whose first segment is empty, never a
 * reference to host `a`, as a WHATWG URL resolved against a base would make it. `*`
 * (asterisk-form) is a path no route has. Anything else (absolute-form) is a URL whose path is
 * served, its authority ignored (RFC 9112, 3.2.2: a server accepts it). Undefined when it is no URL
 * at all (`http://[/v1/pets`, `http://%zz/`, a port over 65535): the local server's own 400.
 */
export function requestTarget(target: string): URL | undefined {
  const text = target === '*' ? '/*' : target;
  try {
    return /^[/\\]/.test(text) ? new URL(`http://localhost${text}`) : new URL(text);
  } catch {
    return undefined;
  }
}
