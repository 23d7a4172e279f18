import type { ApiProblem } from '../errors';
import { API_BASE_PATH } from './base-path';

/** A deprecated operation: since when, when it goes away, and what replaces it. */
export interface Deprecation {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  readonly successorPath: string;
}

/**
 * `GET /pets/{petId}` has been deprecated since interface 1.0.0 was published and is removed on
 * 5 December 2030; `GET /pets` with the `status` filter replaces it.
 */
export const GET_PET_DEPRECATION: Deprecation = {
  deprecatedAt: new Date(Date.UTC(2026, 10, 22)),
  sunsetAt: new Date(Date.UTC(2030, 11, 5)),
  successorPath: `${API_BASE_PATH}/pets`,
};

/** From its sunset on, by the service's clock, the operation answers this to every request. */
export function isPastSunset({ sunsetAt }: Deprecation, nowMs: number): boolean {
  return nowMs >= sunsetAt.getTime();
}

/** The answer of an operation past its sunset (a plain value, answered once the request is counted). */
export function goneProblem({ sunsetAt, successorPath }: Deprecation): ApiProblem {
  return {
    status: 410,
    code: 'gone',
    message: `This operation was removed on ${sunsetAt.toUTCString()}; use ${successorPath} instead.`,
  };
}

/** Deprecation (RFC 9745), Sunset (RFC 8594) and the successor link (RFC 8288). */
export function deprecationHeaders({ deprecatedAt, sunsetAt, successorPath }: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(deprecatedAt.getTime() / 1000)}`,
    Sunset: sunsetAt.toUTCString(),
    Link: `<${successorPath}>; rel="successor-version"`,
  };
}
