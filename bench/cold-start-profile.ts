/**
 * Where a cold start's time goes, by module: `npm run bench -- --only profile`. Each function, ours
 * and the baseline, is bundled as deployed but with line breaks kept (identifiers and syntax still
 * minified) and esbuild's `// <path>` comment at each module's start. Fresh processes import it and
 * serve one request under V8's sampling profiler (bench/children/cold-start-profile.mjs); every
 * sample's line is attributed to the module whose code it is in, or, outside the bundle, to V8's
 * own entries (parsing and compiling show as `(program)`) and Node's internal modules (the source
 * map is read by `node:internal/source_map/…`). The profiler slows everything down, so read the
 * figures as shares of a cold start, not as its duration.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Chrome's .cpuprofile format, as V8's inspector returns it. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The modules of a bundle built with line breaks: which module each line belongs to. */
export interface BundleModules {
  readonly url: string;
  /** 1-based first line of each module, ascending, with its label. */
  readonly starts: readonly { readonly line: number; readonly label: string }[];
}

/** `node_modules/@aws-sdk/client-dynamodb/dist-es/…` → `@aws-sdk/client-dynamodb`; our files keep their path from the root. */
export function moduleLabel(path: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inPackage) return inPackage[1] as string;
  // A bundle built from another checkout (a git worktree) names our files from there.
  return /(?:^|\/)((?:shared|functions|infra|bench)\/.*)$/.exec(path)?.[1] ?? path;
}

export function bundleModulesOf(bundleFile: string): BundleModules {
  const starts: { line: number; label: string }[] = [{ line: 1, label: '(esbuild runtime and banner)' }];
  readFileSync(bundleFile, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const comment = /^\/\/ (\S+\.(?:[cm]?js|ts|json))$/.exec(text);
      if (comment) starts.push({ line: index + 1, label: moduleLabel(comment[1] as string) });
    });
  return { url: pathToFileURL(bundleFile).href, starts };
}

function labelOfLine(modules: BundleModules, line: number): string {
  let low = 0;
  let high = modules.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((modules.starts[middle] as { line: number }).line <= line) low = middle;
    else high = middle - 1;
  }
  return (modules.starts[low] as { label: string }).label;
}

/** Microseconds of a profile per module (or V8 entry, or Node internal module). */
export function timeByModule(profile: CpuProfile, modules: BundleModules): Map<string, number> {
  // A sample's time is the gap to the next one.
  const microsecondsOfNode = new Map<number, number>();
  profile.samples.forEach((nodeId, index) => {
    const gap = profile.timeDeltas[index + 1] ?? 0;
    microsecondsOfNode.set(nodeId, (microsecondsOfNode.get(nodeId) ?? 0) + gap);
  });
  const byModule = new Map<string, number>();
  const add = (label: string, microseconds: number) => byModule.set(label, (byModule.get(label) ?? 0) + microseconds);
  for (const node of profile.nodes) {
    const microseconds = microsecondsOfNode.get(node.id) ?? 0;
    if (microseconds === 0) continue;
    const { url, functionName } = node.callFrame;
    if (url === modules.url) {
      const ticks = node.positionTicks ?? [];
      const total = ticks.reduce((sum, { ticks: count }) => sum + count, 0);
      if (total === 0) add(labelOfLine(modules, node.callFrame.lineNumber + 1), microseconds);
      for (const { line, ticks: count } of ticks) add(labelOfLine(modules, line), (microseconds * count) / total);
    } else if (url === '')
      add(functionName.startsWith('(') ? functionName : `native: ${functionName || 'anonymous'}`, microseconds);
    else if (url.startsWith('node:')) add(url.replace(/^node:internal\/([^/]+).*$/, 'node:internal/$1'), microseconds);
    else add('(bench harness)', microseconds);
  }
  return byModule;
}

/** What a module's time is counted under in the summary. */
export function groupOf(label: string): string {
  if (label === 'zod') return 'zod';
  if (label.startsWith('@middy/')) return 'middy';
  if (label === '@aws-sdk/lib-dynamodb' || label === '@aws-sdk/util-dynamodb')
    return 'DynamoDB document client (lib-dynamodb, util-dynamodb)';
  if (label.startsWith('bench/baseline/') || /^functions\/[^/]+\/baseline\.ts$/.test(label))
    return "the baseline's handler code";
  if (/^(shared|functions|infra)\//.test(label)) return 'our code (shared/, functions/)';
  // Packages: scoped, or a bare name (mnemonist, fast-xml-parser); Node's and V8's entries have a prefix or parentheses.
  if (/^(@aws-sdk|@smithy|@aws-crypto)\/|^[a-z][\w.-]*$/.test(label)) return 'AWS SDK and its dependencies (both)';
  if (
    label === 'node:internal/modules' ||
    label === '(esbuild runtime and banner)' ||
    label === 'ModuleWrap' ||
    label === 'compileFunction'
  )
    return 'loading and compiling the bundle';
  if (label === 'node:internal/source_map') return "the bundle's source map";
  if (label === 'node:internal/bootstrap' || label === 'node:internal/webstreams')
    return "Node's built-in modules, loaded on first use";
  if (label === '(garbage collector)') return 'garbage collection';
  if (label === '(idle)') return 'waiting for I/O';
  return 'Node and V8, other';
}

const PHASES = ['import', 'first response'] as const;
export type Phase = (typeof PHASES)[number];
type Side = 'ours' | 'baseline';
/** Microseconds per module, summed over a function's profiled cold starts. */
export type ProfileTotals = Record<Side, Record<Phase, Map<string, number>>>;

export function emptyTotals(): ProfileTotals {
  return {
    ours: { import: new Map(), 'first response': new Map() },
    baseline: { import: new Map(), 'first response': new Map() },
  };
}

/** Which of the totals a profile adds to: the implementation's, in one phase of its cold start. */
export interface ProfileSlot {
  readonly side: Side;
  readonly phase: Phase;
}

/** Adds a profile's time by module (of the bundle's `modules`) to the totals' `slot`. */
export function addProfile(
  totals: ProfileTotals,
  { side, phase }: ProfileSlot,
  profile: CpuProfile,
  modules: BundleModules,
): void {
  for (const [label, microseconds] of timeByModule(profile, modules))
    totals[side][phase].set(label, (totals[side][phase].get(label) ?? 0) + microseconds);
}

const fixed2 = (value: number) => value.toFixed(2);

/** A function's profile in Markdown: by group for both phases, then the modules that differ most. */
export function profileReport(name: string, totals: ProfileTotals, runs: number): string {
  const ms = (side: Side, phase: Phase, keys: (label: string) => boolean) =>
    [...totals[side][phase]].filter(([label]) => keys(label)).reduce((sum, [, us]) => sum + us, 0) / runs / 1000;
  /** Per phase: ours, the baseline's, and the difference. */
  const cells = (keys: (label: string) => boolean) =>
    PHASES.flatMap((phase) => {
      const [ours, baseline] = [ms('ours', phase, keys), ms('baseline', phase, keys)];
      return [ours, baseline, ours - baseline];
    });
  const difference = (values: number[]) => (values[2] as number) + (values[5] as number);
  const labels = [
    ...new Set(PHASES.flatMap((phase) => [...totals.ours[phase].keys(), ...totals.baseline[phase].keys()])),
  ];
  const rows = [...new Set(labels.map(groupOf))]
    .map((group) => ({ group, values: cells((label) => groupOf(label) === group) }))
    .sort((a, b) => difference(b.values) - difference(a.values));
  let report = `\n### ${name} (ms a process under the profiler, mean of ${runs})\n\n`;
  report +=
    '| | import: ours | baseline | ours − baseline | first response: ours | baseline | ours − baseline |\n|---|---|---|---|---|---|---|\n';
  report += `| **all** | ${cells(() => true)
    .map((value) => `**${fixed2(value)}**`)
    .join(' | ')} |\n`;
  for (const { group, values } of rows) report += `| ${group} | ${values.map(fixed2).join(' | ')} |\n`;
  const detail = labels
    .map((label) => ({ label, values: cells((candidate) => candidate === label) }))
    .filter(({ values }) => Math.abs(difference(values)) >= 0.15)
    .sort((a, b) => Math.abs(difference(b.values)) - Math.abs(difference(a.values)));
  report += `\nModules whose difference is 0.15 ms or more:\n\n| module | import: ours | baseline | ours − baseline | first response: ours | baseline | ours − baseline |\n|---|---|---|---|---|---|---|\n`;
  for (const { label, values } of detail) report += `| \`${label}\` | ${values.map(fixed2).join(' | ')} |\n`;
  return report;
}
