import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measuredIn } from '../../bench/arguments';
import { BODY_SHAPE_NAMES, BODY_SIZES, type BodiesResult } from '../../bench/body-shapes';
import { ALL_CASES, BENCH_FUNCTIONS, type BenchFunction } from '../../bench/cases';
import {
  assertComparable,
  measuredAll,
  measuredOf,
  mergeResults,
  reportOf,
  type Provenance,
  type Results,
} from '../../bench/results';
import { SCALE_CASES } from '../../bench/scale-cases';

/**
 * A run of one function's parts (`npm run bench -- --operation getPet --only e2e`) merges into
 * bench/results.json (bench/results.ts, a pure function): its figures replace that function's, every
 * other figure stays as it was, byte for byte, and the file says what was measured when.
 */
const root = join(import.meta.dirname, '../..');
/** The committed figures, as a whole run wrote them before runs were merged (its provenance, if it has any, left out: each test says its own). */
function committed(): Results {
  const { measured: _measured, ...figures } = JSON.parse(
    readFileSync(join(root, 'bench/results.json'), 'utf8'),
  ) as Results;
  return figures;
}
const AT: Provenance = { date: '2031-05-06T07:08:09.000Z', commit: 'abc123def456+changes' };
const others = (fn: BenchFunction) => BENCH_FUNCTIONS.filter((other) => other !== fn);
const side = (p50: number) => ({ p50, p99: p50 * 3 });

/** A run's results holding only getPet's end-to-end figures and its bundle sizes (as bench/run.ts builds them). */
function freshGetPet(old: Results): Results {
  return {
    ...old,
    date: AT.date,
    sizes: { ours: { getPet: { bytes: 1, gzipBytes: 2 } }, baseline: { getPet: { bytes: 3, gzipBytes: 4 } } },
    coldStart: {},
    coldStartPairedRatio: {},
    overheadMicroseconds: {},
    bodies: undefined,
    endToEndMs: { getPet: { ours: side(9.5), baseline: side(5) } },
    dynamoDb: {},
    load: undefined,
    scale: undefined,
    durationSeconds: 42,
  };
}

/** The file's figures that are not this function's, as JSON text: what a merge of its figures must leave byte for byte. */
function figuresBesides(results: Results, fn: BenchFunction): string {
  const cases = new Set(ALL_CASES.filter((benchCase) => benchCase.fn === fn).map((benchCase) => benchCase.name));
  const labels = new Set(
    ALL_CASES.flatMap((benchCase) =>
      benchCase.fn === fn && benchCase.dynamoDb !== undefined ? [benchCase.dynamoDb.label] : [],
    ),
  );
  const scaleCases = new Set(
    SCALE_CASES.filter((scaleCase) => (scaleCase.functions as readonly string[]).includes(fn)).map(
      (scaleCase) => scaleCase.name as string,
    ),
  );
  const without = <V>(record: Record<string, V> | undefined, keys: Set<string>) =>
    Object.fromEntries(Object.entries(record ?? {}).filter(([key]) => !keys.has(key)));
  const own = new Set([fn]);
  const { measured: _measured, ...rest } = results;
  return JSON.stringify(
    {
      ...rest,
      sizes: { ours: without(results.sizes.ours, own), baseline: without(results.sizes.baseline, own) },
      coldStart: without(results.coldStart, own),
      coldStartPairedRatio: without(results.coldStartPairedRatio, own),
      overheadMicroseconds: without(results.overheadMicroseconds, cases),
      // Every body figure is createPet's (bench/body-shapes.ts).
      bodies: measuredIn('bodies', fn).length > 0 ? undefined : results.bodies,
      endToEndMs: without(results.endToEndMs, own),
      dynamoDb: without(results.dynamoDb, labels),
      load:
        results.load === undefined ? undefined : { ...results.load, operations: without(results.load.operations, own) },
      scale:
        results.scale === undefined
          ? undefined
          : { ...results.scale, cases: results.scale.cases.filter((figure) => !scaleCases.has(figure.name)) },
    },
    null,
    2,
  );
}

describe("merging one function's figures into the results", () => {
  it("puts getPet's end-to-end figures and bundle sizes in their place, and leaves every other figure as it was, byte for byte", () => {
    const old = committed();
    const merged = mergeResults(old, freshGetPet(old), { functions: ['getPet'], parts: ['size', 'e2e'] }, AT);

    expect(merged.endToEndMs.getPet).toEqual({ ours: side(9.5), baseline: side(5) });
    expect([merged.sizes.ours.getPet, merged.sizes.baseline.getPet]).toEqual([
      { bytes: 1, gzipBytes: 2 },
      { bytes: 3, gzipBytes: 4 },
    ]);
    // getPet's other parts were not measured: as they were.
    expect([
      merged.coldStart.getPet,
      merged.overheadMicroseconds.getPet,
      merged.dynamoDb.getPet,
      merged.load?.operations.getPet,
    ]).toEqual([
      old.coldStart.getPet,
      old.overheadMicroseconds.getPet,
      old.dynamoDb.getPet,
      old.load?.operations.getPet,
    ]);
    // Every other function's figures, and the whole run's date, machine, versions and duration.
    expect(figuresBesides(merged, 'getPet')).toBe(figuresBesides(old, 'getPet'));
    expect(JSON.stringify(merged.endToEndMs.listPets, null, 2)).toBe(JSON.stringify(old.endToEndMs.listPets, null, 2));
    // Each key keeps its place: the file's diff is getPet's lines (and the provenance).
    expect(Object.keys(merged.endToEndMs)).toEqual(Object.keys(old.endToEndMs));
    expect(Object.keys(merged).slice(0, Object.keys(old).length)).toEqual(Object.keys(old));
  });

  it("says which function's part was measured when, and on which commit; the rest keep what the file said", () => {
    const old = committed();
    const merged = mergeResults(old, freshGetPet(old), { functions: ['getPet'], parts: ['size', 'e2e'] }, AT);
    expect(merged.measured?.getPet).toEqual({ ...measuredOf(old).getPet, size: AT, e2e: AT });
    for (const fn of others('getPet')) expect(merged.measured?.[fn]).toEqual(measuredOf(old)[fn]);
    // A file from before provenance was kept: its whole run's date, its commit unknown.
    expect(measuredOf(old).listPets?.e2e).toEqual({ date: old.date, commit: 'unknown' });
    // Merged again: each part keeps the run that last measured it.
    const later: Provenance = { date: '2031-05-07T00:00:00.000Z', commit: 'fedcba987654' };
    const fresh = {
      ...freshGetPet(old),
      sizes: { ours: {}, baseline: {} },
      endToEndMs: { listPets: { ours: side(1), baseline: side(1) } },
    };
    const twice = mergeResults(merged, fresh, { functions: ['listPets'], parts: ['e2e'] }, later);
    expect([twice.measured?.getPet?.e2e, twice.measured?.listPets?.e2e, twice.measured?.listPets?.size]).toEqual([
      AT,
      later,
      { date: old.date, commit: 'unknown' },
    ]);
    expect(twice.endToEndMs.getPet).toEqual(merged.endToEndMs.getPet);
    expect(reportOf(twice)).toContain('3. 2031-05-07 00:00, commit fedcba987654\n');
  });

  it("results.md: every other function's rows as they were, getPet's new, and a head and a table that say the figures come from more than one run", () => {
    const old = committed();
    const merged = mergeResults(old, freshGetPet(old), { functions: ['getPet'], parts: ['size', 'e2e'] }, AT);
    const rowsOf = (report: string, fn: string) =>
      report.split('\n').filter((line) => line.startsWith(`| ${fn} |`) || line.startsWith(`| ${fn} (`));
    const [before, after] = [reportOf(old), reportOf(merged)];
    for (const fn of others('getPet'))
      expect(rowsOf(after, fn).slice(0, rowsOf(before, fn).length)).toEqual(rowsOf(before, fn));
    expect(after).toContain('| getPet | 9.50 | 5.00 | 1.90× | 28.50 | 15.00 |');
    expect(after).toContain('**Figures from more than one run**');
    expect(after).toContain('## Measured');
    expect(after).toContain('2. 2031-05-06 07:08, commit abc123def456+changes\n');
    expect(rowsOf(after, 'getPet').at(-1)).toBe(
      '| getPet | run 2 | run 1 | run 1 | – | run 2 | run 1 | run 1 | run 1 |',
    );
    // A whole run's file says its commit once, and nothing of several runs.
    const whole = reportOf({ ...old, measured: measuredAll(old, AT) });
    expect(whole).toContain('Commit abc123def456+changes.');
    expect(whole).not.toContain('more than one run');
  });

  it("merges a function's DynamoDB measurements and overhead by its cases' labels and names alone", () => {
    const old = committed();
    const figures = {
      requests: 1,
      operations: ['GetItem'],
      roundTrips: 1,
      capacityUnits: 0.5,
      readUnits: 0.5,
      itemsRead: undefined,
    };
    const fresh = {
      ...freshGetPet(old),
      dynamoDb: { getPet: { ours: figures, baseline: figures } },
      overheadMicroseconds: { getPet: { ours: side(1), baseline: side(2) } },
    };
    const merged = mergeResults(old, fresh, { functions: ['getPet'], parts: ['requests', 'overhead'] }, AT);
    expect(merged.dynamoDb.getPet?.ours).toEqual(figures);
    expect(merged.overheadMicroseconds.getPet).toEqual({ ours: side(1), baseline: side(2) });
    expect(figuresBesides(merged, 'getPet')).toBe(figuresBesides(old, 'getPet'));
    // Not asked for: as it was.
    expect(merged.endToEndMs.getPet).toEqual(old.endToEndMs.getPet);
  });

  it("merges createPet's body figures, every shape at every size, and leaves every other figure as it was", () => {
    const old = committed();
    const bodies = (p50: number, shapes: readonly string[] = BODY_SHAPE_NAMES): BodiesResult => ({
      iterations: 500,
      p50Microseconds: Object.fromEntries(
        shapes.map((shape) => [
          shape,
          Object.fromEntries(BODY_SIZES.map((bytes) => [String(bytes), { ours: p50, baseline: p50 / 2 }])),
        ]),
      ),
    });
    const fresh = { ...freshGetPet(old), sizes: { ours: {}, baseline: {} }, endToEndMs: {}, bodies: bodies(20) };
    const merged = mergeResults(old, fresh, { functions: ['createPet'], parts: ['bodies'] }, AT);
    expect(merged.bodies).toEqual(bodies(20));
    expect(merged.measured?.createPet?.bodies).toEqual(AT);
    expect(figuresBesides(merged, 'createPet')).toBe(figuresBesides(old, 'createPet'));
    expect(reportOf(merged)).toContain(
      '| plain: a pet with one long unknown member of plain letters | 16 KiB | 400 | 20.0 | 20.0 | 1.00× | 10.0 | 10.0 | 1.00× | 1.00× / 1.00× | ≤ 100×, growth ≤ 8×: met |',
    );
    expect(reportOf(merged)).toContain('| createPet | run 1 | run 1 | run 1 | run 2 | run 1 | run 1 | run 1 | run 1 |');
    // Merged again: the new figures in place; a shape no longer sent dropped.
    const stale = {
      ...bodies(20),
      p50Microseconds: { ...bodies(20).p50Microseconds, goneShape: bodies(1).p50Microseconds.plain as never },
    };
    expect(
      Object.keys(
        mergeResults(
          { ...old, bodies: stale },
          { ...fresh, bodies: bodies(30) },
          { functions: ['createPet'], parts: ['bodies'] },
          AT,
        ).bodies?.p50Microseconds ?? {},
      ),
    ).toEqual(BODY_SHAPE_NAMES);
    // A run without one of its shapes merges nothing.
    expect(() =>
      mergeResults(
        old,
        { ...fresh, bodies: bodies(20, ['plain']) },
        { functions: ['createPet'], parts: ['bodies'] },
        AT,
      ),
    ).toThrow('the run measured no body of whitespace');
  });

  it("the load run's readable check stays with the run that last measured an operation creating pets", () => {
    const old = committed();
    if (old.load === undefined) throw new Error('bench/results.json has no load figures');
    const getPetLoad = {
      requests: 3000,
      requestsPerSecond: 1,
      p50Ms: 1,
      p99Ms: 2,
      statuses: { '200': 3000 },
      errors: 0,
      seconds: 1,
    };
    const onlyGetPet = {
      ...freshGetPet(old),
      load: { load: old.load.load, operations: { getPet: getPetLoad }, createdPets: 0, readableAfter: 0 },
    };
    const merged = mergeResults(old, onlyGetPet, { functions: ['getPet'], parts: ['load'] }, AT);
    expect(merged.load?.operations.getPet).toEqual(getPetLoad);
    expect([merged.load?.createdPets, merged.load?.readableAfter]).toEqual([
      old.load.createdPets,
      old.load.readableAfter,
    ]);
    const createLoad = { ...getPetLoad, statuses: { '201': 2999, '503': 1 } };
    const onlyCreate = {
      ...onlyGetPet,
      load: { load: old.load.load, operations: { createPet: createLoad }, createdPets: 2999, readableAfter: 2998 },
    };
    const again = mergeResults(old, onlyCreate, { functions: ['createPet'], parts: ['load'] }, AT);
    expect([again.load?.createdPets, again.load?.readableAfter]).toEqual([2999, 2998]);
    // Other settings would not compare.
    const otherSettings = {
      ...onlyGetPet,
      load: { ...onlyGetPet.load, load: { connections: 20, amountPerOperation: 3000 } },
    };
    expect(() => mergeResults(old, otherSettings, { functions: ['getPet'], parts: ['load'] }, AT)).toThrow(
      "the load run's settings changed",
    );
  });

  it("the scale part: the function's scale cases and the mix, measured again, in their places; the others as they were", () => {
    const old = committed();
    if (old.scale === undefined) throw new Error('bench/results.json has no scale figures');
    const figureOf = (name: string) => ({
      ...(old.scale?.cases.find((figure) => figure.name === name) as NonNullable<Results['scale']>['cases'][number]),
      sustainedRate: 1234,
    });
    const fresh = {
      ...freshGetPet(old),
      scale: {
        scale: old.scale.scale,
        cases: [
          figureOf('getPet'),
          figureOf('getPetOnePet'),
          figureOf('mix'),
          figureOf('oneKeyGetPet'),
          figureOf('oneEnterpriseKeyGetPet'),
        ],
      },
    };
    const merged = mergeResults(old, fresh, { functions: ['getPet'], parts: ['scale'] }, AT);
    expect(merged.scale?.cases.map((figure) => figure.name)).toEqual(old.scale.cases.map((figure) => figure.name));
    expect(merged.scale?.cases.filter((figure) => figure.sustainedRate === 1234).map((figure) => figure.name)).toEqual([
      'getPet',
      'getPetOnePet',
      'mix',
      'oneKeyGetPet',
      'oneEnterpriseKeyGetPet',
    ]);
    expect(figuresBesides(merged, 'getPet')).toBe(figuresBesides(old, 'getPet'));
  });

  it('refuses a run without the figures it is said to merge, and figures of another machine or other versions', () => {
    const old = committed();
    expect(() => mergeResults(old, freshGetPet(old), { functions: ['getPet'], parts: ['cold'] }, AT)).toThrow(
      'the run measured no cold start of getPet',
    );
    expect(() =>
      assertComparable(old, { machine: { ...old.machine, cores: old.machine.cores + 2 }, versions: old.versions }),
    ).toThrow('bench/results.json was measured with other machine');
    expect(() => assertComparable(old, { machine: old.machine, versions: { ...old.versions, zod: '0.0.1' } })).toThrow(
      'other versions',
    );
    expect(() => assertComparable(old, { machine: old.machine, versions: old.versions })).not.toThrow();
  });
});

describe('a merge after a case, label or function was removed', () => {
  it('drops the figures nothing current names, so that the report finds every figure it prints', () => {
    const old = committed();
    const stale: Results = {
      ...old,
      sizes: {
        ours: { ...old.sizes.ours, gonePet: { bytes: 1, gzipBytes: 1 } },
        baseline: { ...old.sizes.baseline, gonePet: { bytes: 1, gzipBytes: 1 } },
      },
      coldStart: { ...old.coldStart, gonePet: old.coldStart.getPet as never },
      endToEndMs: { ...old.endToEndMs, gonePet: { ours: side(1), baseline: side(1) } },
      overheadMicroseconds: { ...old.overheadMicroseconds, goneCase: old.overheadMicroseconds.getPet as never },
      dynamoDb: { ...old.dynamoDb, 'gonePet (a label no case has)': old.dynamoDb.getPet as never },
    };
    const merged = mergeResults(stale, freshGetPet(stale), { functions: ['getPet'], parts: ['size', 'e2e'] }, AT);
    for (const record of [
      merged.sizes.ours,
      merged.sizes.baseline,
      merged.coldStart,
      merged.endToEndMs,
      merged.overheadMicroseconds,
      merged.dynamoDb,
    ]) {
      expect(Object.keys(record).filter((key) => key.startsWith('gone'))).toEqual([]);
    }
    expect(merged.endToEndMs.listPets).toEqual(old.endToEndMs.listPets);
    expect(() => reportOf(merged)).not.toThrow();
  });
});
