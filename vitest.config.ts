import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local (in memory, free port) for the run; each test file gets its own table.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/table-per-file.ts'],
    env: {
      LOG_LEVEL: 'silent',
      AWS_REGION: 'us-east-1',
      CURSOR_SECRET: 'test-cursor-secret',
      // Most tests list the pets they just made, each request on its own: listings show new ids at
      // once and keep no first page (test/integration/time-ordered-ids.test.ts and test/unit/first-page-cache.test.ts test the defaults).
      LISTING_SETTLE_MS: '0',
      FIRST_PAGE_CACHE: 'off',
      // The SDK warns once per process that its 2027 releases need Node 22 (the Lambda runtime).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    // Most files wait on DynamoDB Local or a server they started, not on the CPU: vitest's default of
    // one worker on two cores (CPUs - 1) left the second idle (the suite: 271 to 291 s; 202 s with two).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
