import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The API reference page: Swagger UI from the `swagger-ui-dist` package, served by us (no CDN, so
 * it works offline), reading the interface description from `../openapi.json`, relative to the page.
 */

/** The directory the deployed bundle carries the assets in (infra/functions.ts copies them there). */
export const BUNDLED_ASSETS_DIRECTORY = 'reference-assets';

/** The files of swagger-ui-dist the page loads. */
export const SWAGGER_UI_FILES: readonly string[] = ['swagger-ui-bundle.js', 'swagger-ui.css'];

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Starts Swagger UI on the document; a file of its own, so the page's CSP needs no inline script. */
const INITIALIZER = `window.addEventListener('load', function startReference() {
  // From the page's path alone: deepLinking writes #/tag/operation into the address, and a query or
  // fragment must not move the document (/v1/docs and /v1/docs/ both give /v1/openapi.json).
  var page = window.location.origin + window.location.pathname.replace(/\\/?$/, '/');
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', page).href,
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    displayOperationId: true,
    showExtensions: true,
    defaultModelsExpandDepth: 1,
  });
});
`;

export const REFERENCE_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pet store API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/initializer.js"></script>
</body>
</html>
`;

/** The page's own sources only; Try-it-out may call the servers the document lists. */
export const REFERENCE_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' https: http://localhost:*; frame-ancestors 'none'";

export interface ReferenceAsset {
  readonly body: string;
  readonly contentType: string;
}

let assetsDirectory: string | undefined;

/** Beside the bundle when deployed; the installed swagger-ui-dist package when run from source. */
function swaggerUiDirectory(): string {
  if (assetsDirectory !== undefined) return assetsDirectory;
  const bundled = fileURLToPath(new URL(`./${BUNDLED_ASSETS_DIRECTORY}/`, import.meta.url));
  assetsDirectory = existsSync(bundled)
    ? bundled
    : join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..');
  return assetsDirectory;
}

const cache = new Map<string, ReferenceAsset>();

/** One of the page's assets by file name, or undefined for any other name. */
export function referenceAsset(name: string): ReferenceAsset | undefined {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  let asset: ReferenceAsset | undefined;
  if (name === 'initializer.js') asset = { body: INITIALIZER, contentType: CONTENT_TYPES['.js'] as string };
  else if (SWAGGER_UI_FILES.includes(name)) {
    asset = {
      body: readFileSync(join(swaggerUiDirectory(), name), 'utf8'),
      contentType: CONTENT_TYPES[name.slice(name.lastIndexOf('.'))] as string,
    };
  }
  if (asset !== undefined) cache.set(name, asset);
  return asset;
}
