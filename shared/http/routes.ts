/**
 * The base path of every route, the routes' names in log lines, and the documentation's routes;
 * each operation's own route is in its declaration (shared/functions.ts).
 */
import { OPERATIONS, type OperationId } from '../functions';

export type { OperationId, Route } from '../functions';

export const API_BASE_PATH = '/v1';

/** `GET /v1/pets`: the operation's route as the log line names it. */
export function routeOf(operationId: OperationId): string {
  const { method, path } = OPERATIONS[operationId].route;
  return `${method} ${API_BASE_PATH}${path}`;
}

export { DOCUMENTATION_ROUTES } from '../functions';
