/**
 * The operations and where they live: the local server routes by this table, and the stack and
 * the interface description are declared from it.
 */
import type { OperationId } from '../operations';

export type { OperationId } from '../operations';

export const API_BASE_PATH = '/v1';

export const OPERATIONS = {
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/{petId}' },
} as const satisfies Record<OperationId, { method: string; path: string }>;

export function routeOf(operationId: OperationId): string {
  const { method, path } = OPERATIONS[operationId];
  return `${method} ${API_BASE_PATH}${path}`;
}

/**
 * Served without a key by functions/apiDocs.ts: the interface description and its reference page
 * (the page's own scripts and styles under /docs/).
 */
export const DOCUMENTATION_ROUTES = {
  openApiDocument: { method: 'GET', path: '/openapi.json' },
  apiReference: { method: 'GET', path: '/docs' },
  apiReferenceAsset: { method: 'GET', path: '/docs/{asset}' },
} as const;
