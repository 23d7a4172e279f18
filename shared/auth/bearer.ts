/**
 * Reads the bearer credential of RFC 6750 from an Authorization header value. The scheme is
 * case-insensitive; the token must be a b64token and not absurdly long (keys are far shorter).
 */
export type BearerCredential =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

const MAX_TOKEN_LENGTH = 512;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The credential of a request that sent `headerCount` Authorization headers, the first spelled
 * `authorization`: more than one, in any spelling, is malformed (decisions.md), whatever their
 * values: which would count is the client's guess, and a gateway's cache key may be another's.
 */
export function readBearerHeaders(headerCount: number, authorization: string | undefined): BearerCredential {
  return headerCount > 1 ? { kind: 'malformed' } : readBearer(authorization);
}

export function readBearer(authorization: string | undefined): BearerCredential {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'missing' };
  if (authorization.length > MAX_TOKEN_LENGTH + 16) return { kind: 'malformed' };
  const match = BEARER.exec(authorization);
  const token = match?.[1];
  return token === undefined ? { kind: 'malformed' } : { kind: 'token', token };
}
