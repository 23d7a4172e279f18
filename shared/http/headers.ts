import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * A request header by its lower-case name, however the client spelled it: names are
 * case-insensitive (RFC 9110) and API Gateway passes them as sent. The exact spelling is tried
 * first and only same-length names are compared on a miss, so a request pays for the few
 * headers the stack reads, not for copying all of them (an API Gateway event carries twenty or so).
 */
export function requestHeader(headers: APIGatewayProxyEvent['headers'] | null | undefined, lowerCaseName: string): string | undefined {
  if (headers === null || headers === undefined) return undefined;
  const exact = headers[lowerCaseName];
  if (exact !== undefined) return exact;
  for (const name in headers) {
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) return headers[name];
  }
  return undefined;
}
