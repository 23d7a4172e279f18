import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '../infra/bundling';
import { BUNDLED_ASSETS_DIRECTORY, SWAGGER_UI_FILES } from '../shared/docs/reference-page';
import { FUNCTIONS, RELEASED_FUNCTIONS, type ReleasedFunction } from '../functions/table';

/**
 * The released functions' bundles, made exactly as the stack deploys them: esbuild with the
 * stack's options (infra/bundling.ts), one directory per function holding `index.mjs` (as a
 * NodejsFunction's asset does), and apiDocs' reference page files beside its bundle, as the stack
 * ships them (infra/pet-store-stack.ts, `extraFiles`).
 */
const root = resolve(import.meta.dirname, '..');

/** A function's bundle in a build directory. */
export function bundleOf(buildDirectory: string, name: ReleasedFunction): string {
  return join(buildDirectory, name, 'index.mjs');
}

export async function buildReleasedBundles(buildDirectory: string): Promise<void> {
  await Promise.all(
    RELEASED_FUNCTIONS.map((name) =>
      build(esbuildOptionsFor(join(root, FUNCTIONS[name].handler), bundleOf(buildDirectory, name))),
    ),
  );
  const assets = join(dirname(bundleOf(buildDirectory, 'apiDocs')), BUNDLED_ASSETS_DIRECTORY);
  await mkdir(assets, { recursive: true });
  const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  await Promise.all(SWAGGER_UI_FILES.map((file) => copyFile(join(swaggerUi, file), join(assets, file))));
}
