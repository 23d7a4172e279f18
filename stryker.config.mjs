// `npm run mutate`: StrykerJS over the core modules (docs/testing.md#mutation-testing). Not part
// of `npm test` or CI: it runs the tests that cover each mutant, for every mutant.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: [
    'shared/limits/windows.ts',
    'shared/limits/counter-store.ts',
    'shared/limits/rate-limiter.ts',
    'shared/limits/suspension.ts',
    'shared/auth/authorize.ts',
    'shared/auth/bearer.ts',
    'shared/pets/cursor.ts',
    'shared/pets/idempotency.ts',
    'shared/pets/name-pattern.ts',
    'shared/http/media-type.ts',
    'shared/http/json-members.ts',
    'shared/http/middleware/validate-request.ts',
  ],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 95, low: 90, break: 90 },
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
