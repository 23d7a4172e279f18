import { measuredIn } from './arguments';
import { bodiesSection } from './bodies-report';
import { BODY_SHAPE_NAMES, type BodiesResult } from './body-shapes';
import { ALL_CASES, BENCH_FUNCTIONS, caseLabelled, type BenchFunction, type Implementation } from './cases';
import { SCALE_CASES, type ScaleResult } from './scale-cases';
import { scaleTable } from './scale-report';

/**
 * bench/results.json, what bench/results.md shows of it, and how a run of some functions' parts
 * (`npm run bench -- --operation <id> [--only <part>]`) merges into it: their figures replace
 * theirs, every other function's stay as they were, byte for byte, and `measured` says which
 * function's part was measured when, and at which commit. A whole run measures everything at
 * once; a file with figures from several runs says so at its head and in its "Measured" table.
 *
 * Figures that span functions: the cost table's mix (docs/scale-and-cost.md) is computed from
 * each case's figures, so it is computed again from the merged file; the scale run's mix is
 * measured, so it runs again with any function's scale cases (it names every function:
 * bench/scale-cases.ts); the load run's check that every created pet is readable belongs to the
 * operations that created pets, and is kept from the run that last measured one of them.
 */

/**
 * Fresh processes per function and side. With 15, this two-core machine's drift moved a ratio by
 * up to 0.15 between runs of unchanged code (the authorizer read 1.03× to 1.18×); with 31, by up
 * to 0.10 in a busy hour (getPet read 1.02× to 1.12×, listPets 0.96× to 1.09×), as much as the
 * target's whole margin. 61 narrows the median's spread by another √2, for some 40 s more a run.
 */
export const COLD_STARTS = 61;
/** Import and first response, p50, at most this many times the baseline's (issue 26; it was 1.2). */
export const COLD_START_TARGET = 1.1;
export const OVERHEAD_ITERATIONS = 20_000;
export const END_TO_END_ITERATIONS = 300;

export interface LoadResult {
  load: { connections: number; amountPerOperation: number };
  operations: Record<
    string,
    {
      requests: number;
      requestsPerSecond: number;
      p50Ms: number;
      p99Ms: number;
      statuses: Record<string, number>;
      errors: number;
      seconds: number;
    }
  >;
  createdPets: number;
  readableAfter: number;
}

export type DynamoDbFigures = {
  requests: number;
  operations: string[];
  roundTrips: number;
  capacityUnits: number;
  readUnits: number;
  itemsRead: number | undefined;
};

/** The parts of the results, per function: the bundle sizes (measured by every run) and the parts a run runs (bench/arguments.ts, but the profile, which only prints). */
export const RESULT_PARTS = ['size', 'cold', 'overhead', 'bodies', 'e2e', 'requests', 'load', 'scale'] as const;
export type ResultPart = (typeof RESULT_PARTS)[number];

/** When a function's part was measured, and on which code: `git rev-parse --short HEAD`, `+changes` when the working tree had any; `unknown` from a file before these were kept. */
export interface Provenance {
  readonly date: string;
  readonly commit: string;
}

export type Measured = Partial<Record<BenchFunction, Partial<Record<ResultPart, Provenance>>>>;

export type Results = {
  /** The whole run's (a merge keeps it). */
  date: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  versions: Record<string, string>;
  sizes: Record<Implementation, Record<string, { bytes: number; gzipBytes: number }>>;
  coldStart: Record<
    string,
    Record<Implementation, { importMs: { p50: number; p90: number }; firstResponseMs: { p50: number; p90: number } }>
  >;
  coldStartPairedRatio: Record<string, number>;
  overheadMicroseconds: Record<string, Record<Implementation, { p50: number; p99: number }>>;
  /** createPet's bodies by shape (bench/body-shapes.ts); undefined in a file from before the part. */
  bodies: BodiesResult | undefined;
  endToEndMs: Record<string, Record<Implementation, { p50: number; p99: number }>>;
  load: LoadResult | undefined;
  scale: ScaleResult | undefined;
  dynamoDb: Record<string, Record<Implementation, DynamoDbFigures>>;
  /** The whole run's (a merge keeps it). */
  durationSeconds: number;
  /** Per function and part: when it was measured (a whole run's file: all alike). */
  measured?: Measured;
};

const caseNamesOf = (fn: BenchFunction) =>
  ALL_CASES.filter((benchCase) => benchCase.fn === fn).map((benchCase) => benchCase.name);
const labelsOf = (fn: BenchFunction) =>
  ALL_CASES.flatMap((benchCase) =>
    benchCase.fn === fn && benchCase.dynamoDb !== undefined ? [benchCase.dynamoDb.label] : [],
  );
const scaleCasesOf = (fn: BenchFunction) =>
  SCALE_CASES.filter((scaleCase) => (scaleCase.functions as readonly string[]).includes(fn)).map(
    (scaleCase) => scaleCase.name as string,
  );

/** The keys of a part's figures that are the function's: its name, its cases', its labels', its scale cases'. */
function keysOf(part: ResultPart, fn: BenchFunction): string[] {
  switch (part) {
    case 'size':
    case 'cold':
    case 'e2e':
    case 'load':
      return [fn];
    case 'overhead':
      return caseNamesOf(fn);
    case 'bodies':
      return measuredIn('bodies', fn);
    case 'requests':
      return labelsOf(fn);
    case 'scale':
      return scaleCasesOf(fn);
  }
}

/** Whether the results hold figures of the function's part. */
function holds(results: Results, part: ResultPart, fn: BenchFunction): boolean {
  const keys = keysOf(part, fn);
  const within = (record: object | undefined) => record !== undefined && keys.some((key) => Object.hasOwn(record, key));
  switch (part) {
    case 'size':
      return within(results.sizes?.ours);
    case 'cold':
      return within(results.coldStart);
    case 'overhead':
      return within(results.overheadMicroseconds);
    case 'bodies':
      return within(results.bodies?.p50Microseconds);
    case 'e2e':
      return within(results.endToEndMs);
    case 'requests':
      return within(results.dynamoDb);
    case 'load':
      return within(results.load?.operations);
    case 'scale':
      return results.scale?.cases.some((figure) => keys.includes(figure.name)) ?? false;
  }
}

/** Every function's part the results hold, measured `at` (a whole run's provenance). */
export function measuredAll(results: Results, at: Provenance): Measured {
  return Object.fromEntries(
    BENCH_FUNCTIONS.flatMap((fn) => {
      const parts = RESULT_PARTS.filter((part) => holds(results, part, fn));
      return parts.length === 0 ? [] : [[fn, Object.fromEntries(parts.map((part) => [part, at]))]];
    }),
  ) as Measured;
}

/** The results' provenance; a file from before it was kept: its whole run's date, commit unknown. */
export function measuredOf(results: Results): Measured {
  return results.measured ?? measuredAll(results, { date: results.date, commit: 'unknown' });
}

/** The record with the fresh figures of these keys put in (an old key keeps its place, a new one comes last); every other entry as it was. */
function replaced<V>(
  old: Readonly<Record<string, V>> | undefined,
  fresh: Readonly<Record<string, V>> | undefined,
  keys: readonly string[],
  what: string,
): Record<string, V> {
  const merged: Record<string, V> = { ...old };
  for (const key of keys) {
    if (fresh === undefined || !Object.hasOwn(fresh, key)) throw new Error(`the run measured no ${what} of ${key}`);
    merged[key] = fresh[key] as V;
  }
  return merged;
}

/** The operations whose load answers created pets (201). */
const creators = (load: LoadResult | undefined) =>
  Object.entries(load?.operations ?? {}).flatMap(([operation, measured]) =>
    (measured.statuses['201'] ?? 0) > 0 ? [operation] : [],
  );

function mergedLoad(
  old: LoadResult | undefined,
  fresh: LoadResult | undefined,
  operations: readonly string[],
): LoadResult {
  if (fresh === undefined) throw new Error('the run has no load figures');
  if (old !== undefined && JSON.stringify(old.load) !== JSON.stringify(fresh.load)) {
    throw new Error(
      `the load run's settings changed (${JSON.stringify(old.load)} → ${JSON.stringify(fresh.load)}): its figures would not compare; run the whole bench`,
    );
  }
  // The readable check counts the pets the run created: the last run that measured a creating operation holds it.
  const checkedNow =
    old === undefined ||
    operations.some((operation) => creators(old).includes(operation) || creators(fresh).includes(operation));
  const check = checkedNow ? fresh : old;
  return {
    load: fresh.load,
    operations: replaced(old?.operations, fresh.operations, operations, 'load figure'),
    createdPets: check.createdPets,
    readableAfter: check.readableAfter,
  };
}

function mergedScale(
  old: ScaleResult | undefined,
  fresh: ScaleResult | undefined,
  names: readonly string[],
): ScaleResult {
  if (fresh === undefined) throw new Error('the run has no scale figures');
  if (old !== undefined && JSON.stringify(old.scale) !== JSON.stringify(fresh.scale)) {
    throw new Error(
      "the scale run's settings changed (bench/scale-cases.ts SCALE): its figures would not compare; run the whole bench",
    );
  }
  const byName = replaced(
    Object.fromEntries((old?.cases ?? []).map((figure) => [figure.name, figure])),
    Object.fromEntries(fresh.cases.map((figure) => [figure.name, figure])),
    names,
    'scale case',
  );
  return { scale: fresh.scale, cases: Object.values(byName) };
}

/** Every body figure is createPet's (bench/body-shapes.ts): its run gives each shape at each size. */
function mergedBodies(
  old: BodiesResult | undefined,
  fresh: BodiesResult | undefined,
  shapes: readonly string[],
): BodiesResult {
  if (fresh === undefined) throw new Error('the run has no body figures');
  return {
    iterations: fresh.iterations,
    p50Microseconds: replaced(old?.p50Microseconds, fresh.p50Microseconds, shapes, 'body'),
  };
}

export interface MergeScope {
  readonly functions: readonly BenchFunction[];
  readonly parts: readonly ResultPart[];
}

/**
 * The old results with the fresh run's figures of these functions' parts in their place, and
 * their provenance; every other figure, and the whole run's date, machine and duration, as they were.
 */
export function mergeResults(old: Results, fresh: Results, scope: MergeScope, at: Provenance): Results {
  const keys = (part: ResultPart) =>
    scope.parts.includes(part) ? scope.functions.flatMap((fn) => keysOf(part, fn)) : [];
  const merged: Results = {
    ...old,
    sizes: scope.parts.includes('size')
      ? {
          ours: replaced(old.sizes?.ours, fresh.sizes?.ours, keys('size'), 'bundle'),
          baseline: replaced(old.sizes?.baseline, fresh.sizes?.baseline, keys('size'), 'baseline bundle'),
        }
      : old.sizes,
    coldStart: scope.parts.includes('cold')
      ? replaced(old.coldStart, fresh.coldStart, keys('cold'), 'cold start')
      : old.coldStart,
    coldStartPairedRatio: scope.parts.includes('cold')
      ? replaced(old.coldStartPairedRatio, fresh.coldStartPairedRatio, keys('cold'), 'paired cold start')
      : old.coldStartPairedRatio,
    overheadMicroseconds: scope.parts.includes('overhead')
      ? replaced(
          old.overheadMicroseconds,
          fresh.overheadMicroseconds,
          keys('overhead').filter((name) => ALL_CASES.find((benchCase) => benchCase.name === name)?.timedWithoutIo),
          'overhead',
        )
      : old.overheadMicroseconds,
    bodies: scope.parts.includes('bodies') ? mergedBodies(old.bodies, fresh.bodies, keys('bodies')) : old.bodies,
    endToEndMs: scope.parts.includes('e2e')
      ? replaced(old.endToEndMs, fresh.endToEndMs, keys('e2e'), 'end-to-end figure')
      : old.endToEndMs,
    dynamoDb: scope.parts.includes('requests')
      ? replaced(old.dynamoDb, fresh.dynamoDb, keys('requests'), 'DynamoDB measurement')
      : old.dynamoDb,
    load: scope.parts.includes('load')
      ? mergedLoad(
          old.load,
          fresh.load,
          keys('load').filter((fn) => fn !== 'authorizer'),
        )
      : old.load,
    scale: scope.parts.includes('scale') ? mergedScale(old.scale, fresh.scale, [...new Set(keys('scale'))]) : old.scale,
  };
  const measured: Measured = { ...measuredOf(old) };
  for (const fn of scope.functions) {
    const parts = scope.parts.filter((part) => holds(fresh, part, fn));
    if (parts.length > 0) measured[fn] = { ...measured[fn], ...Object.fromEntries(parts.map((part) => [part, at])) };
  }
  // In the functions' order, whatever order the runs came in.
  merged.measured = Object.fromEntries(
    BENCH_FUNCTIONS.flatMap((fn) => (measured[fn] === undefined ? [] : [[fn, measured[fn]]])),
  ) as Measured;
  return withoutStale(merged);
}

/** Only what a current function or case has: a figure of a function, case or label since removed or renamed is dropped (it would name nothing the report can find). */
function withoutStale(results: Results): Results {
  const functions = new Set<string>(BENCH_FUNCTIONS);
  const timed = new Set(ALL_CASES.filter((benchCase) => benchCase.timedWithoutIo).map((benchCase) => benchCase.name));
  const labels = new Set(
    ALL_CASES.flatMap((benchCase) => (benchCase.dynamoDb === undefined ? [] : [benchCase.dynamoDb.label])),
  );
  const shapes = new Set<string>(BODY_SHAPE_NAMES);
  const only = <V>(
    record: Readonly<Record<string, V>> | undefined,
    keys: ReadonlySet<string>,
  ): Record<string, V> | undefined =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).filter(([key]) => keys.has(key)));
  return {
    ...results,
    sizes:
      results.sizes === undefined
        ? undefined
        : { ours: only(results.sizes.ours, functions) ?? {}, baseline: only(results.sizes.baseline, functions) ?? {} },
    coldStart: only(results.coldStart, functions),
    coldStartPairedRatio: only(results.coldStartPairedRatio, functions),
    overheadMicroseconds: only(results.overheadMicroseconds, timed),
    bodies:
      results.bodies === undefined
        ? undefined
        : { ...results.bodies, p50Microseconds: only(results.bodies.p50Microseconds, shapes) ?? {} },
    endToEndMs: only(results.endToEndMs, functions),
    dynamoDb: only(results.dynamoDb, labels),
    load:
      results.load === undefined
        ? undefined
        : { ...results.load, operations: only(results.load.operations, functions) ?? {} },
  } as Results;
}

/** Refuses a merge whose figures would not compare with the file's: another machine, Node.js or library version. */
export function assertComparable(
  old: Pick<Results, 'machine' | 'versions'>,
  now: Pick<Results, 'machine' | 'versions'>,
): void {
  for (const [what, before, after] of [
    ['machine', old.machine, now.machine],
    ['versions', old.versions, now.versions],
  ] as const) {
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      throw new Error(
        `bench/results.json was measured with other ${what} (${JSON.stringify(before)}; now ${JSON.stringify(after)}): its figures would not compare with this run's; run the whole bench (npm run bench)`,
      );
    }
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const ratio = (ours: number, baseline: number) => `${(ours / baseline).toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
const PART_HEADINGS: Record<ResultPart, string> = {
  size: 'bundle size',
  cold: 'cold start',
  overhead: 'overhead',
  bodies: 'bodies',
  e2e: 'end to end',
  requests: 'DynamoDB requests',
  load: 'load',
  scale: 'scale',
};
const when = ({ date, commit }: Provenance) =>
  `${date.slice(0, 16).replace('T', ' ')}, ${commit === 'unknown' ? 'commit not recorded' : `commit ${commit}`}`;

/** The provenance the file's figures share, if they all share one. */
function oneProvenance(measured: Measured): Provenance | undefined {
  const all = Object.values(measured).flatMap((parts) => Object.values(parts ?? {}));
  const [first] = all;
  return first !== undefined && all.every((entry) => entry.date === first.date && entry.commit === first.commit)
    ? first
    : undefined;
}

export const RESULTS_SECTION_START =
  '<!-- bench results: generated by `npm run bench` from bench/results.json; do not edit -->';
export const RESULTS_SECTION_END = '<!-- bench results end -->';

/** docs/performance.md's latest results: bench/results.md under the page's own heading (its sections one level down). */
export function resultsSectionOf(results: Results): string {
  return reportOf(results)
    .replace(/^# Benchmark results\n\n/, '')
    .replace(/^## /gm, '### ');
}

/** bench/results.md: what the results hold. */
export function reportOf(results: Results): string {
  const lines: string[] = [];
  const single = results.measured === undefined ? undefined : oneProvenance(results.measured);
  const merged = results.measured !== undefined && single === undefined;
  lines.push('# Benchmark results', '');
  lines.push(
    `${results.date.slice(0, 10)}, ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memoryGiB} GiB, Node.js ${results.machine.node.slice(1)} (${results.machine.platform}).`,
  );
  lines.push(
    `Versions: ${Object.entries(results.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(
        ', ',
      )}. The ${merged ? 'whole ' : ''}run took ${results.durationSeconds} s.${single === undefined ? '' : ` Commit ${single.commit}.`}`,
    '',
  );
  if (merged) {
    lines.push(
      '**Figures from more than one run**: some functions\' parts were measured again alone (`npm run bench -- --operation <id>`) and merged in; "Measured" at the end says which, when and on which commit. Figures measured at different times on a busy machine compare less well than a whole run\'s.',
      '',
    );
  }
  lines.push(
    '"Ours" is each function as the CDK stack bundles it; "baseline" is a framework-free handler (`functions/<name>/baseline.ts`, on bench/baseline/) making the same DynamoDB requests. Ours and the baseline alternate throughout (ABAB).',
    '',
  );

  const notMeasured = (name: string, columns: number) =>
    `| ${name} | not measured: \`npm run bench -- --operation ${name}\` |${' |'.repeat(columns - 2)}`;
  lines.push(
    '## Bundle size',
    '',
    '| function | ours | baseline | ours − baseline | gzip: ours / baseline | target (≤ +80 KB) |',
    '|---|---|---|---|---|---|',
  );
  for (const name of BENCH_FUNCTIONS) {
    const ours = results.sizes.ours[name];
    const baseline = results.sizes.baseline[name];
    if (ours === undefined || baseline === undefined) {
      lines.push(notMeasured(name, 6));
      continue;
    }
    lines.push(
      `| ${name} | ${kb(ours.bytes)} | ${kb(baseline.bytes)} | ${kb(ours.bytes - baseline.bytes)} | ${kb(ours.gzipBytes)} / ${kb(baseline.gzipBytes)} | ${verdict(ours.bytes - baseline.bytes <= 80 * 1024)} |`,
    );
  }

  lines.push(
    '',
    `## Cold start (${COLD_STARTS} fresh processes each; ms, p50 / p90)`,
    '',
    `| function | import: ours | import: baseline | import + first response: ours | baseline | ratio (p50) | paired ratio (p50) | target (≤ ${COLD_START_TARGET}×) |`,
    '|---|---|---|---|---|---|---|---|',
  );
  for (const name of BENCH_FUNCTIONS) {
    const sides = results.coldStart[name];
    if (sides === undefined) {
      lines.push(notMeasured(name, 8));
      continue;
    }
    const { ours, baseline } = sides;
    lines.push(
      `| ${name} | ${fixed(ours.importMs.p50)} / ${fixed(ours.importMs.p90)} | ${fixed(baseline.importMs.p50)} / ${fixed(baseline.importMs.p90)} | ${fixed(ours.firstResponseMs.p50)} / ${fixed(ours.firstResponseMs.p90)} | ${fixed(baseline.firstResponseMs.p50)} / ${fixed(baseline.firstResponseMs.p90)} | ${ratio(ours.firstResponseMs.p50, baseline.firstResponseMs.p50)} | ${fixed(results.coldStartPairedRatio[name] as number, 2)}× | ${verdict(ours.firstResponseMs.p50 <= COLD_START_TARGET * baseline.firstResponseMs.p50)} |`,
    );
  }

  lines.push(
    '',
    `## Stack overhead without I/O (${OVERHEAD_ITERATIONS} invocations each, DynamoDB answered at once by a stub; µs)`,
    '',
    '| case | ours p50 | baseline p50 | difference p50 | ours p99 | baseline p99 | target (≤ +30 µs at p50) |',
    '|---|---|---|---|---|---|---|',
  );
  for (const [caseName, { ours, baseline }] of Object.entries(results.overheadMicroseconds)) {
    lines.push(
      `| ${caseName} | ${fixed(ours.p50)} | ${fixed(baseline.p50)} | ${fixed(ours.p50 - baseline.p50)} | ${fixed(ours.p99)} | ${fixed(baseline.p99)} | ${verdict(ours.p50 - baseline.p50 <= 30)} |`,
    );
  }

  if (results.bodies !== undefined) lines.push('', bodiesSection(results.bodies).trimEnd());

  lines.push(
    '',
    `## End to end against DynamoDB Local (${END_TO_END_ITERATIONS} warm requests each; ms)`,
    '',
    '| operation | ours p50 | baseline p50 | ratio | ours p99 | baseline p99 |',
    '|---|---|---|---|---|---|',
  );
  for (const [name, { ours, baseline }] of Object.entries(results.endToEndMs)) {
    lines.push(
      `| ${name} | ${fixed(ours.p50, 2)} | ${fixed(baseline.p50, 2)} | ${ratio(ours.p50, baseline.p50)} | ${fixed(ours.p99, 2)} | ${fixed(baseline.p99, 2)} |`,
    );
  }

  lines.push(
    '',
    '## DynamoDB requests per warm operation',
    '',
    '| operation | side | requests | round trips waited | consumed capacity | items read | target |',
    '|---|---|---|---|---|---|---|',
  );
  for (const [label, sides] of Object.entries(results.dynamoDb)) {
    for (const implementation of ['ours', 'baseline'] as const) {
      const measured = sides[implementation];
      // The case's targets (bench/cases.ts): the round trips it may wait for, and the items a page may read.
      const { maxRoundTrips, maxItemsRead } = caseLabelled(label).dynamoDb;
      const target =
        measured.roundTrips <= maxRoundTrips &&
        (maxItemsRead === undefined || (measured.itemsRead ?? 0) <= maxItemsRead);
      lines.push(
        `| ${label} | ${implementation} | ${measured.requests} (${measured.operations.join(', ')}) | ${measured.roundTrips} | ${fixed(measured.capacityUnits)} | ${measured.itemsRead ?? '–'} | ${implementation === 'ours' ? verdict(target) : ''} |`,
      );
    }
  }
  const load = results.load;
  if (load !== undefined) {
    lines.push(
      '',
      `## Load: the local server under autocannon (loopback, ${load.load.connections} connections, ${load.load.amountPerOperation.toLocaleString('en-US')} requests per operation)`,
      '',
      "Everything on this machine's two cores: the local server with the deployed handler modules and the authorizer, DynamoDB Local and the load generator.",
      '',
      '| operation | requests a second | p50 (ms) | p99 (ms) | answers | target (0 × 5xx) |',
      '|---|---|---|---|---|---|',
    );
    for (const [operation, measured] of Object.entries(load.operations)) {
      const fiveHundreds = Object.entries(measured.statuses)
        .filter(([status]) => status.startsWith('5'))
        .reduce((sum, [, count]) => sum + count, 0);
      const answers = Object.entries(measured.statuses)
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ');
      lines.push(
        `| ${operation} | ${measured.requestsPerSecond} | ${measured.p50Ms} | ${measured.p99Ms} | ${answers}${measured.errors > 0 ? `, ${measured.errors} errors` : ''} | ${verdict(fiveHundreds === 0 && measured.errors === 0)} |`,
      );
    }
    lines.push(
      '',
      `Pets created: ${load.createdPets}; readable afterwards through the API: ${load.readableAfter} (${verdict(load.readableAfter === load.createdPets)}).`,
    );
  }
  if (results.scale !== undefined)
    lines.push('', '## Scale: where it breaks (the partition model)', '', scaleTable(results.scale).trimEnd());
  if (merged && results.measured !== undefined) {
    // The runs, oldest first, numbered; each function's part names its run.
    const entries = Object.values(results.measured).flatMap((parts) => Object.values(parts ?? {}));
    const runs = [...new Map(entries.map((entry) => [`${entry.date} ${entry.commit}`, entry])).values()].sort((a, b) =>
      a.date.localeCompare(b.date),
    );
    const runOf = (entry: Provenance) =>
      runs.findIndex((run) => run.date === entry.date && run.commit === entry.commit) + 1;
    lines.push(
      '',
      '## Measured',
      '',
      "The runs these figures come from (UTC; `+changes`: the working tree had uncommitted changes), and each function's part by its run. The scale table's mix runs again with any function's scale cases; the load run's count of readable pets comes from the last run of an operation that creates pets; the cost table (docs/scale-and-cost.md) is computed again from the merged figures.",
      '',
      ...runs.map((run, index) => `${index + 1}. ${when(run)}${run.date === results.date ? ' (the whole run)' : ''}`),
      '',
      `| function | ${RESULT_PARTS.map((part) => PART_HEADINGS[part]).join(' | ')} |`,
      `|---|${RESULT_PARTS.map(() => '---|').join('')}`,
    );
    for (const [fn, parts] of Object.entries(results.measured)) {
      lines.push(
        `| ${fn} | ${RESULT_PARTS.map((part) => (parts?.[part] === undefined ? '–' : `run ${runOf(parts[part])}`)).join(' | ')} |`,
      );
    }
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}
