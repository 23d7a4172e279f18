import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calculateMetrics } from 'mutation-testing-metrics';
import groups from './groups.json';
import { failuresOf, type ModuleScore } from './verdict';

/**
 * `npm run mutate [-- <group>…] [--ignore-static]`: StrykerJS once per group of
 * test/mutation/groups.json (all of them by default), each group's modules against the test
 * files that exercise them, then one table of every module's score. Fails when a module scores
 * under stryker.config.mjs's break threshold (which each report repeats) or a run fails.
 * Reports: reports/mutation/<group>.html and .json, scores.md.
 */
const REPORTS = 'reports/mutation';

type Group = keyof typeof groups;
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'ignore-static': { type: 'boolean', default: false } } });
const unknown = positionals.filter((name) => !Object.hasOwn(groups, name));
if (unknown.length > 0) {
  console.error(`Unknown group ${unknown.join(', ')}; the groups are ${Object.keys(groups).join(', ')}.`);
  process.exit(2);
}
const selected = (positionals.length > 0 ? positionals : Object.keys(groups)) as Group[];
/**
 * The files a path names: itself, or for a `*` in one of its folders or its name (the generated
 * checks of every operation: functions/*\/request-checks.generated.ts), every match; Stryker
 * reads the same pattern.
 */
export function filesOf(pattern: string): string[] {
  if (!pattern.includes('*')) return [pattern];
  let paths = [''];
  for (const segment of pattern.split('/')) {
    const matcher = new RegExp('^' + segment.split('*').map((part) => part.replace(/[.+?^$()|[\]{}\\]/g, '\\$&')).join('[^/]*') + '$');
    paths = paths.flatMap((folder) => (segment.includes('*') ? (existsSync(folder || '.') ? readdirSync(folder || '.').filter((name) => matcher.test(name)).sort() : []) : [segment]).map((name) => (folder ? `${folder}/${name}` : name)));
  }
  return paths.filter((path) => existsSync(path));
}

const missing = selected.flatMap((group) => [...groups[group].mutate.flatMap((pattern) => (pattern.includes('*') && filesOf(pattern).length === 0 ? [pattern] : filesOf(pattern))), ...groups[group].tests]).filter((path) => !existsSync(path));
if (missing.length > 0) {
  console.error(`test/mutation/groups.json names files that do not exist: ${missing.join(', ')}.`);
  process.exit(2);
}

mkdirSync(REPORTS, { recursive: true });
const scores: ModuleScore<Group>[] = [];
const failedRuns: Group[] = [];
const minutes: Partial<Record<Group, number>> = {};
const began = Date.now();
for (const group of selected) {
  const report = `${REPORTS}/${group}.json`;
  rmSync(report, { force: true });
  rmSync(`${REPORTS}/${group}.html`, { force: true });
  const started = Date.now();
  const args = ['stryker', 'run', ...(values['ignore-static'] ? ['--ignoreStatic'] : [])];
  spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, MUTATION_GROUP: group } });
  minutes[group] = (Date.now() - started) / 60_000;
  // Stryker's exit code also says "under the threshold", which the table judges per module: a run
  // failed when it wrote no report (deleted above).
  let result: { files: Parameters<typeof calculateMetrics>[0]; thresholds: { break?: number | null } };
  try {
    result = JSON.parse(readFileSync(report, 'utf8')) as typeof result;
  } catch {
    failedRuns.push(group);
    continue;
  }
  for (const module of groups[group].mutate.flatMap(filesOf)) {
    // A module Stryker found nothing to change in (only types and constants `as const`) has no file in the report.
    const file = result.files[module];
    const { metrics } = calculateMetrics(file === undefined ? {} : { [module]: file });
    scores.push({ module, group, score: metrics.mutationScore, killed: metrics.totalDetected, survived: metrics.survived, noCoverage: metrics.noCoverage, ignored: metrics.ignored, breakScore: result.thresholds.break ?? 0 });
  }
}

const lines = [
  `Mutation scores, ${new Date().toISOString().slice(0, 10)}: \`npm run mutate${positionals.length > 0 ? ` -- ${positionals.join(' ')}` : ''}${values['ignore-static'] ? ' --ignore-static' : ''}\`, ${((Date.now() - began) / 60_000).toFixed(0)} minutes`,
  '',
  '| module | score | killed or timed out | survived | no coverage | ignored | group (its minutes) |',
  '|---|---|---|---|---|---|---|',
  ...scores.map((each) => {
    // NaN: a module without mutants (nothing to score).
    const score = Number.isNaN(each.score) ? 'no mutants' : `${each.score.toFixed(1)} %`;
    return `| \`${each.module}\` | ${score} | ${each.killed} | ${each.survived} | ${each.noCoverage} | ${each.ignored} | ${each.group} (${minutes[each.group]?.toFixed(1)}) |`;
  }),
];
writeFileSync(`${REPORTS}/scores.md`, `${lines.join('\n')}\n`);
console.log(`\n${lines.join('\n')}\n`);

const failures = failuresOf(scores, failedRuns, { ignoreStatic: values['ignore-static'] });
for (const failure of failures) console.error(failure);
process.exit(failures.length > 0 ? 1 : 0);
