import { cp, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ReleasedFunction } from '../../functions/table';
import { buildReleasedBundles, bundleOf } from '../../local/release-bundles';

/** Builds of the released bundles for the release drill's tests, each in a temporary directory (removeBuilds removes them). */
const directories: string[] = [];

async function temporaryDirectory(): Promise<string> {
  // Outside the project, as a Lambda function's directory is: a bundle finds no node_modules around it.
  const directory = await mkdtemp(join(tmpdir(), 'release-drill-test-'));
  directories.push(directory);
  return directory;
}

/** The bundles the stack deploys, laid out as `npm run release-drill -- --build` reads them. */
export async function goodBuild(): Promise<string> {
  const directory = await temporaryDirectory();
  await buildReleasedBundles(directory);
  return directory;
}

/** A copy of `good` with one function's bundle replaced by `code`. */
export async function buildWith(good: string, name: ReleasedFunction, code: string): Promise<string> {
  const directory = await temporaryDirectory();
  await cp(good, directory, { recursive: true });
  await writeFile(bundleOf(directory, name), code);
  return directory;
}

/**
 * A copy of `good` with one function's bundle wrapped: the real one moved beside it (`real.mjs`),
 * and `index.mjs` exporting `export const handler = async (event, context) => { <body> }`, in which
 * `real` is the real handler: the function breaks one success path and keeps the rest.
 */
export async function buildWrapping(good: string, name: ReleasedFunction, body: string): Promise<string> {
  const directory = await temporaryDirectory();
  await cp(good, directory, { recursive: true });
  const bundle = bundleOf(directory, name);
  await rename(bundle, join(dirname(bundle), 'real.mjs'));
  await writeFile(
    bundle,
    `import { handler as real } from './real.mjs';\nexport const handler = async (event, context) => {\n${body}\n};\n`,
  );
  return directory;
}

/** Call from afterAll. */
export async function removeBuilds(): Promise<void> {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
}
