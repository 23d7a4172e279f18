import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calculateMetrics } from 'mutation-testing-metrics';
import { SUITE_SETTINGS } from '../../vitest.config';
import groups from './groups.json';
import {
  compactReport,
  filesOf,
  manifestOf,
  manifestText,
  readManifest,
  staleness,
  unchangedSinceReport,
  type Manifest,
  type StoredReport,
} from './incremental-reports';
import { failuresOf, type ModuleScore } from './verdict';

/**
 * `npm run mutate [-- <group>…] [--full] [--ignore-static]`: StrykerJS once per group of
 * test/mutation/groups.json (all of them by default), each group's modules against the test
 * files that exercise them, then one table of every module's score. Fails when a module scores
 * under stryker.config.mjs's break threshold (which each report repeats) or a run fails.
 * Reports: reports/mutation/<group>.html and .json, scores.md.
 *
 * Incremental (docs/testing.md#mutation-testing): each group reuses the results of its report in
 * test/mutation/incremental/<group>.json (committed), which Stryker rewrites, for what neither its
 * mutated modules nor its test files changed in; a group whose manifest there
 * (<group>.manifest.json: what else its runs read, test/mutation/incremental-reports.ts) differs from the
 * tree, or that has no report, runs whole, and so does every group under --full; one whose
 * modules and test files are also as its report holds them is scored from it without running
 * Stryker (no HTML report then).
 */
const REPORTS = 'reports/mutation';
const INCREMENTAL = 'test/mutation/incremental';

type Group = keyof typeof groups;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'ignore-static': { type: 'boolean', default: false }, full: { type: 'boolean', default: false } },
});
const unknown = positionals.filter((name) => !Object.hasOwn(groups, name));
if (unknown.length > 0) {
  console.error(`Unknown group ${unknown.join(', ')}; the groups are ${Object.keys(groups).join(', ')}.`);
  process.exit(2);
}
const selected = (positionals.length > 0 ? positionals : Object.keys(groups)) as Group[];

const missing = selected
  .flatMap((group) => [
    ...groups[group].mutate.flatMap((pattern) =>
      pattern.includes('*') && filesOf(pattern).length === 0 ? [pattern] : filesOf(pattern),
    ),
    ...groups[group].tests,
  ])
  .filter((path) => !existsSync(path));
if (missing.length > 0) {
  console.error(`test/mutation/groups.json names files that do not exist: ${missing.join(', ')}.`);
  process.exit(2);
}

mkdirSync(REPORTS, { recursive: true });
mkdirSync(INCREMENTAL, { recursive: true });
// A group no longer in groups.json leaves no report behind.
if (positionals.length === 0) {
  for (const file of readdirSync(INCREMENTAL))
    if (!Object.hasOwn(groups, file.replace(/(\.manifest)?\.json$/, ''))) rmSync(`${INCREMENTAL}/${file}`);
}
// vitest's set-up runs before every test file and no test file imports it.
const setupFiles = [...SUITE_SETTINGS.globalSetup, ...SUITE_SETTINGS.setupFiles];

type Result = { files: Parameters<typeof calculateMetrics>[0]; thresholds: { break?: number | null } };
const readResult = (path: string): Result | undefined => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Result;
  } catch {
    return undefined;
  }
};

const scores: ModuleScore<Group>[] = [];
const failedRuns: Group[] = [];
const minutes: Partial<Record<Group, number>> = {};
const how: Partial<Record<Group, 'whole' | 'incremental' | 'unchanged'>> = {};
const began = Date.now();
for (const group of selected) {
  const report = `${REPORTS}/${group}.json`;
  rmSync(report, { force: true });
  rmSync(`${REPORTS}/${group}.html`, { force: true });
  const started = Date.now();
  // Stryker reads and writes the incremental report there (stryker.config.mjs); the manifest is the tree's as the run starts.
  const incrementalReport = `${INCREMENTAL}/${group}.json`;
  const manifestFile = `${INCREMENTAL}/${group}.manifest.json`;
  const manifest: Manifest = await manifestOf(groups[group], setupFiles);
  const whyWhole = values.full
    ? ['--full']
    : !existsSync(incrementalReport)
      ? ['no report']
      : staleness(readManifest(manifestFile), manifest);
  const stored = whyWhole.length === 0 && !values['ignore-static'] ? readResult(incrementalReport) : undefined;
  let result: Result | undefined;
  if (stored !== undefined && unchangedSinceReport(stored as unknown as StoredReport, groups[group])) {
    how[group] = 'unchanged';
    console.log(
      `\n${group}: unchanged since its report (its manifest, modules and test files): scored from it, Stryker not run (no HTML report)\n`,
    );
    result = stored;
    writeFileSync(report, readFileSync(incrementalReport));
  } else {
    how[group] = whyWhole.length > 0 ? 'whole' : 'incremental';
    console.log(
      `\n${group}: ${whyWhole.length > 0 ? `whole run (${whyWhole.slice(0, 5).join('; ')}${whyWhole.length > 5 ? `; and ${whyWhole.length - 5} more` : ''})` : 'incremental (its manifest matches the tree)'}\n`,
    );
    // Without a report to read Stryker runs every mutant (as --force would, but keeping no result of a module the group no longer mutates).
    if (whyWhole.length > 0) rmSync(incrementalReport, { force: true });
    const args = ['stryker', 'run', ...(values['ignore-static'] ? ['--ignoreStatic'] : [])];
    spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, MUTATION_GROUP: group } });
    // Stryker's exit code also says "under the threshold", which the table judges per module: a run
    // failed when it wrote no report (deleted above).
    result = readResult(report);
    // A run that reported rewrote the incremental report (with the results it reused): it and the
    // manifest it goes with are committed by whoever closes the issue.
    if (result !== undefined && existsSync(incrementalReport)) {
      const written = readFileSync(incrementalReport, 'utf8');
      const kept = compactReport(written);
      writeFileSync(incrementalReport, kept);
      writeFileSync(manifestFile, manifestText(manifest));
      console.log(
        `${incrementalReport}: ${(kept.length / 1024).toFixed(0)} KB (Stryker wrote ${(written.length / 1024).toFixed(0)} KB), and ${manifestFile}: commit both`,
      );
    }
  }
  minutes[group] = (Date.now() - started) / 60_000;
  if (result === undefined) {
    failedRuns.push(group);
    continue;
  }
  for (const module of groups[group].mutate.flatMap((pattern) => filesOf(pattern))) {
    // A module Stryker found nothing to change in (only types and constants `as const`) has no file in the report.
    const file = result.files[module];
    const { metrics } = calculateMetrics(file === undefined ? {} : { [module]: file });
    scores.push({
      module,
      group,
      score: metrics.mutationScore,
      killed: metrics.totalDetected,
      survived: metrics.survived,
      noCoverage: metrics.noCoverage,
      ignored: metrics.ignored,
      breakScore: result.thresholds.break ?? 0,
    });
  }
}

const invocation = [
  ...positionals,
  ...(values.full ? ['--full'] : []),
  ...(values['ignore-static'] ? ['--ignore-static'] : []),
];
const lines = [
  `Mutation scores, ${new Date().toISOString().slice(0, 10)}: \`npm run mutate${invocation.length > 0 ? ` -- ${invocation.join(' ')}` : ''}\`, ${((Date.now() - began) / 60_000).toFixed(0)} minutes`,
  '',
  '| module | score | killed or timed out | survived | no coverage | ignored | group (its minutes, run) |',
  '|---|---|---|---|---|---|---|',
  ...scores.map((each) => {
    // NaN: a module without mutants (nothing to score).
    const score = Number.isNaN(each.score) ? 'no mutants' : `${each.score.toFixed(1)} %`;
    return `| \`${each.module}\` | ${score} | ${each.killed} | ${each.survived} | ${each.noCoverage} | ${each.ignored} | ${each.group} (${minutes[each.group]?.toFixed(1)}, ${how[each.group]}) |`;
  }),
];
writeFileSync(`${REPORTS}/scores.md`, `${lines.join('\n')}\n`);
console.log(`\n${lines.join('\n')}\n`);

const failures = failuresOf(scores, failedRuns, { ignoreStatic: values['ignore-static'] });
for (const failure of failures) console.error(failure);
process.exit(failures.length > 0 ? 1 : 0);
