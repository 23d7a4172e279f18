/**
 * Where the operations live, as declared in shared/functions.ts: the local server routes by it, and
 * the stack and the interface description are declared from it.
 */
import { OPERATIONS as DECLARED, SUPPORT_FUNCTIONS, type OperationId, type Route } from '../functions';

export type { OperationId, Route } from '../functions';

export const API_BASE_PATH = '/v1';

/** Each operation's method and path (below API_BASE_PATH). */
export const OPERATIONS = Object.fromEntries(Object.entries(DECLARED).map(([id, declaration]) => [id, declaration.route])) as { readonly [Id in OperationId]: (typeof DECLARED)[Id]['route'] };

export function routeOf(operationId: OperationId): string {
  const { method, path } = OPERATIONS[operationId];
  return `${method} ${API_BASE_PATH}${path}`;
}

/**
 * Served without a key by functions/apiDocs.ts: the interface description and its reference page
 * (the page's own scripts and styles under /docs/).
 */
export const DOCUMENTATION_ROUTES: typeof SUPPORT_FUNCTIONS.apiDocs.routes = SUPPORT_FUNCTIONS.apiDocs.routes;
