import type { Route } from './route';

/** Served without a key by the apiDocs function: the interface description and its reference page (its scripts and styles under /docs/). */
export const DOCUMENTATION_ROUTES = {
  openApiDocument: { method: 'GET', path: '/openapi.json' },
  apiReference: { method: 'GET', path: '/docs' },
  apiReferenceAsset: { method: 'GET', path: '/docs/{asset}' },
} as const satisfies Record<string, Route>;
