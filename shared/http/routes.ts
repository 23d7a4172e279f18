/**
 * The base path of every route, the routes' names in log lines, and the documentation's routes;
 * each operation's own route is in its declaration (functions/<operationId>/operation.ts), copied
 * for the functions into operation-routes.generated.ts (they bundle no declaration).
 */
import { API_BASE_PATH } from './base-path';
import { OPERATION_ROUTES, type OperationId } from './operation-routes.generated';

export { API_BASE_PATH };
export { DOCUMENTATION_ROUTES } from './documentation-routes';
export { OPERATION_ROUTES, type OperationId };
export type { Route } from './route';

/** Every operation's id, in route order. */
export const OPERATION_IDS = /* @__PURE__ */ Object.keys(OPERATION_ROUTES) as OperationId[];

/** `GET /v1/pets`: the operation's route as the log line names it. */
export function routeOf(operationId: OperationId): string {
  const { method, path } = OPERATION_ROUTES[operationId];
  return `${method} ${API_BASE_PATH}${path}`;
}
