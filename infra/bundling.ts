import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How every function is bundled: by the stack (NodejsFunction, esbuild locally, no Docker) and by
 * `npm run bench`, which must measure exactly what is deployed.
 */
export const ESBUILD_TARGET = 'node22';

/**
 * Every function's NODE_OPTIONS: stack traces point at the TypeScript sources. Node reads a
 * bundle's source map when it loads it, so the maps leave the sources' text out (it only
 * served debuggers): a third of the map's size, and about 8 ms of every cold start.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/**
 * Imports the bundles resolve to a module of ours: `node:stream/web`, which only @middy/core
 * imports, for an `instanceof` (infra/bundle-shims/node-stream-web.ts: about 1 ms of each cold start).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  'node:stream/web': join(import.meta.dirname, 'bundle-shims', 'node-stream-web.ts'),
};

/** CommonJS code in a dependency may call require(); give the ESM bundle one. */
const REQUIRE_BANNER =
  "import { createRequire as __petstoreCreateRequire } from 'module'; const require = __petstoreCreateRequire(import.meta.url);";

export const LAMBDA_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: ESBUILD_TARGET,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // The AWS SDK is bundled, so the deployed code is the tested code.
  bundleAwsSDK: true,
  mainFields: ['module', 'main'],
  banner: REQUIRE_BANNER,
  esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
};

/** The same, as esbuild's own options (what NodejsFunction passes to the esbuild CLI). */
export function esbuildOptionsFor(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: ESBUILD_TARGET,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    alias: { ...BUNDLE_ALIASES },
    logLevel: 'warning',
  };
}
