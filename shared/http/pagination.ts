/**
 * The next page of a list, as an RFC 8288 `Link` header: the same request (its parameters in a
 * fixed order, the page size always explicit) with the opaque cursor added.
 */
export function nextPageHeaders(
  resourceUrl: string,
  parameters: Readonly<Record<string, string | number | undefined>>,
  nextCursor: string | undefined,
): Record<string, string> {
  if (nextCursor === undefined) return {};
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) query.set(name, String(value));
  }
  query.set('cursor', nextCursor);
  return { Link: `<${resourceUrl}?${query.toString()}>; rel="next"` };
}
