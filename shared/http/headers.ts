import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * A request header by its lower-case name, however the client spelled it: names are
 * case-insensitive (RFC 9110) and API Gateway passes them as sent. The two usual spellings
 * (`content-type`, `Content-Type`) are tried first and the names are compared only when both
 * miss, so a request pays for the few headers the stack reads, not for copying all of them (an
 * API Gateway event carries twenty or so).
 */
export function requestHeader(
  headers: APIGatewayProxyEvent['headers'] | null | undefined,
  lowerCaseName: string,
): string | undefined {
  if (headers === null || headers === undefined) return undefined;
  const value = headers[lowerCaseName] ?? headers[canonicalSpelling(lowerCaseName)];
  if (value !== undefined) return value;
  for (const name in headers) {
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) return headers[name];
  }
  return undefined;
}

const canonicalSpellings = new Map<string, string>();

/** `x-forwarded-proto` → `X-Forwarded-Proto`, made once per name. */
function canonicalSpelling(lowerCaseName: string): string {
  let canonical = canonicalSpellings.get(lowerCaseName);
  if (canonical === undefined) {
    canonical = lowerCaseName.replace(
      /(^|-)([a-z])/g,
      (_, dash: string, letter: string) => dash + letter.toUpperCase(),
    );
    canonicalSpellings.set(lowerCaseName, canonical);
  }
  return canonical;
}

/**
 * Every value of a request header, however spelled and however often sent: API Gateway (and the
 * local server) give each value of a repeated header in the multi-value map, one list per spelling.
 */
export function requestHeaderValues(
  multiValueHeaders: APIGatewayProxyEvent['multiValueHeaders'] | null | undefined,
  lowerCaseName: string,
): string[] {
  const values: string[] = [];
  // for…in over null or undefined runs no turn.
  for (const name in multiValueHeaders) {
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName)
      values.push(...(multiValueHeaders[name] ?? []));
  }
  return values;
}

/** How many times a request header was sent, in any spelling (without copying the values). */
export function requestHeaderCount(
  multiValueHeaders: APIGatewayProxyEvent['multiValueHeaders'] | null | undefined,
  lowerCaseName: string,
): number {
  let count = 0;
  for (const name in multiValueHeaders)
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName)
      count += multiValueHeaders[name]?.length ?? 0;
  return count;
}
