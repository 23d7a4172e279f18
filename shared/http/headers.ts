import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * A request header by its lower-case name, however the client spelled it: names are
 * case-insensitive (RFC 9110) and API Gateway passes them as sent. The two usual spellings
 * (`content-type`, `Content-Type`) are tried first and the names are compared only when both
 * miss, so a request pays for the few headers the stack reads, not for copying all of them (an
 * API Gateway event carries twenty or so).
 */
export function requestHeader(headers: APIGatewayProxyEvent['headers'] | null | undefined, lowerCaseName: string): string | undefined {
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
    canonical = lowerCaseName.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
    canonicalSpellings.set(lowerCaseName, canonical);
  }
  return canonical;
}
