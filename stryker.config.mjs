// StrykerJS over the core modules (docs/testing.md#mutation-testing). Not part of `npm test` (it
// runs the tests that cover each mutant, for every mutant); CI runs it after. `npm run mutate`
// (test/mutation/run.ts) runs it once per group of test/mutation/groups.json, naming the group in
// MUTATION_GROUP, so that each module is tried against the test files that exercise it; without
// it (`npx stryker run --mutate <file>`), against all of them.
import { readFileSync } from 'node:fs';

const groups = JSON.parse(readFileSync(new URL('./test/mutation/groups.json', import.meta.url), 'utf8'));
const group = process.env.MUTATION_GROUP;
if (group !== undefined && !Object.hasOwn(groups, group))
  throw new Error(`MUTATION_GROUP ${group} is not in test/mutation/groups.json`);
const report = `reports/mutation/${group ?? 'all'}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: (group === undefined ? Object.values(groups) : [groups[group]]).flatMap((selected) => selected.mutate),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `${report}.html` },
  jsonReporter: { fileName: `${report}.json` },
  thresholds: { high: 95, low: 90, break: 90 },
  // A group's results, reused for what its modules and test files did not change in (committed; test/mutation/run.ts
  // deletes it first for a whole run). None for a run without a group.
  incremental: group !== undefined,
  incrementalFile: `test/mutation/incremental/${group}.json`,
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  // Vitest checks no types, and test/codegen/generated-files.test.ts compares the sandbox's files as they are written.
  disableTypeChecks: false,
  cleanTempDir: 'always',
};
