import { availableParallelism } from 'node:os';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration, type ViteUserConfig } from 'vitest/config';

/**
 * What every run of the suite sets: `npm test` (this file), `npm run test:operation`
 * (vitest.operation.config.ts) and mutation testing (vitest.mutate.config.ts, test/mutation/run.ts).
 */
export const SUITE_SETTINGS = {
  // One DynamoDB Local (in memory, free port) for the run; each test file gets its own table.
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/table-per-file.ts'],
  env: {
    LOG_LEVEL: 'silent',
    AWS_REGION: 'us-east-1',
    CURSOR_SECRET: 'test-cursor-secret',
    // Most tests list the pets they just made, each request on its own: listings show new ids at
    // once and keep no first page (test/integration/time-ordered-ids.test.ts and test/unit/shared/pets/first-page-cache.test.ts test the defaults).
    LISTING_SETTLE_MS: '0',
    FIRST_PAGE_CACHE: 'off',
    FOUND_PET_CACHE: 'off',
    // The SDK warns once per process that its 2027 releases need Node 22 (the Lambda runtime).
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
  // Most files wait on DynamoDB Local or a server they started, not on the CPU: vitest's default of
  // one worker on two cores (CPUs - 1) left the second idle (the suite: 271 to 291 s; 202 s with two).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  testTimeout: 30_000,
  hookTimeout: 90_000,
} as const;

/**
 * The folders whose test files need neither a table nor modules of their own: they run in
 * threads that keep what each file imported for the next file (no isolation) and without the
 * table-per-file set-up, which for these files cost more than their tests (measured on 72 files: 36 s on two
 * idle cores isolated, 9 s so; docs/testing.md#the-suites-projects). Safe because nothing they load
 * reads a setting or keeps state that another file's tests see.
 */
const SHARED_MODULE_FOLDERS = [
  'test/unit',
  'test/architecture',
  'test/codegen',
  'test/openapi',
  'test/docs',
  'test/bench',
  'test/infra',
  'test/types',
];

/** Files in those folders that do need a table, or modules of their own: why. They run as the rest of the suite does. */
export const OWN_MODULES: Readonly<Record<string, string>> = {
  'test/bench/baseline-parity.test.ts': 'runs each handler and its baseline twin against a table',
  'test/bench/setups.test.ts': "makes each bench case's data through the repository, in a table",
  'test/openapi/no-content-contract.test.ts': 'serves a bodiless answer through the local server, against a table',
  // zod keeps its configuration on globalThis: once any file loads zod's classic build, which sets
  // English messages, zod/mini (what the functions use) answers with those too.
  'test/codegen/request-checks.test.ts':
    "compares generated checks with zod/mini's own messages, which another file's loading of zod's classic build changes",
  'test/codegen/operation-request-checks.test.ts':
    "compares the functions' generated checks with zod/mini's own messages (as above)",
  'test/unit/local/dynamodb-target.test.ts': "sets AWS credentials in the process's environment",
};

/** Files that need a process of their own (vitest's forks) rather than a thread, like the rest: why. */
export const OWN_PROCESS: Readonly<Record<string, string>> = {
  'test/infra/stack.test.ts':
    "bundles the functions through the CDK, which gives esbuild the process's own stderr (a worker thread has none)",
};

/** Whether a test file is among `include`: a folder's `**\/*.test.ts`, or the file itself. */
export function included(path: string, include: readonly string[]): boolean {
  return include.some((pattern) =>
    pattern.endsWith('**/*.test.ts') ? path.startsWith(pattern.slice(0, -'**/*.test.ts'.length)) : path === pattern,
  );
}

/** The project's root: this file's folder, whatever directory vitest runs from. */
const ROOT = import.meta.dirname;

function testFilesIn(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(folder, name).split('\\').join('/'))
    .sort();
}

/** The test files of `include` that run with shared modules (above). */
export function sharedModuleTests(include: readonly string[]): string[] {
  return SHARED_MODULE_FOLDERS.flatMap(testFilesIn).filter(
    (path) => !Object.hasOwn(OWN_MODULES, path) && !Object.hasOwn(OWN_PROCESS, path) && included(path, include),
  );
}

/**
 * A run of the test files of `include`, in up to three projects: those with shared modules (above);
 * the others isolated, each with a table of its own, in threads (a third less wall time than in
 * processes: the suite 4.9 minutes instead of 5.9), but for those that need a process of their own.
 */
export function suiteConfig(include: readonly string[]): ViteUserConfig {
  const { globalSetup, setupFiles, ...settings } = SUITE_SETTINGS;
  const shared = sharedModuleTests(include);
  const ownProcess = Object.keys(OWN_PROCESS).filter((path) => included(path, include));
  const isolated = { globalSetup: [...globalSetup], setupFiles: [...setupFiles] };
  const projects: TestProjectInlineConfiguration[] = [
    {
      extends: true,
      test: {
        name: 'isolated',
        include: [...include],
        exclude: [...configDefaults.exclude, ...shared, ...ownProcess],
        pool: 'threads',
        ...isolated,
      },
    },
  ];
  if (ownProcess.length > 0)
    projects.push({ extends: true, test: { name: 'own process', include: ownProcess, pool: 'forks', ...isolated } });
  if (shared.length > 0)
    projects.push({
      extends: true,
      test: { name: 'shared modules', include: shared, pool: 'threads', isolate: false },
    });
  return defineConfig({ test: { ...settings, env: { ...settings.env }, projects } });
}

export default suiteConfig(['test/**/*.test.ts']);
