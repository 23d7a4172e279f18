/**
 * The bench's scale run (a child of bench/run.ts): where the data model breaks. The local server,
 * with the deployed handler modules and the authorizer, talks to DynamoDB Local through the
 * partition model (test/support/partition-model.ts: DynamoDB's per-partition rates divided by a
 * factor). For each case it finds the highest rate it sustains with fewer than 1 % throttled
 * answers (503), and which partition throttled first above it. Prints one JSON object. The server
 * is one process: one instance of each function, with one cache of busy first pages
 * (SCALE.instances); listings run with the deployed settle time and that cache on.
 *
 *   tsx bench/scale.ts <DynamoDB endpoint> [case ...]
 *
 * The load is open-loop: requests leave at the offered rate whatever the answers take, as
 * clients of a public API do. (autocannon's rate is per connection and closed-loop: a request the
 * SDK retries for seconds holds its connection and lowers the offered rate exactly when the
 * datastore throttles, so it cannot measure this.)
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../local/create-table';
import { startPartitionModel, type PartitionUse } from '../test/support/partition-model';
import { SHARD_THRESHOLD_PER_MINUTE } from '../shared/limits/counter-shards';
import {
  ENTERPRISE_ABOVE_ONE_PARTITION,
  SCALE,
  SCALE_CASES,
  seededStatus,
  type ScaleCase,
  type ScaleCaseName,
  type ScaleCaseResult,
  type ScaleFixtures,
  type ScaleRequest,
  type ScaleStep,
} from './scale-cases';

const [endpoint, ...only] = process.argv.slice(2) as [string, ...ScaleCaseName[]];
const TABLE = `petstore-scale-${randomUUID().slice(0, 8)}`;

Object.assign(process.env, {
  TABLE_NAME: TABLE,
  LOG_LEVEL: 'silent',
  AWS_REGION: 'eu-west-1',
  CURSOR_SECRET: 'bench-cursor-secret',
});
const model = await startPartitionModel(endpoint, { factor: 1 });
// The handler modules read their settings when first imported: through the model.
process.env.DYNAMODB_ENDPOINT = model.endpoint;
const { KeyRegistry } = await import('../shared/auth/key-registry');
const { DynamoDbPetRepository } = await import('../shared/pets/repository');
const { LISTING_SETTLE_MS } = await import('../shared/pets/pet-ids');
const { startLocalServer } = await import('../local/server');

// Set-up goes straight to DynamoDB Local, not through the model.
const rawClient = new DynamoDBClient({
  endpoint,
  region: 'eu-west-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const client = DynamoDBDocumentClient.from(rawClient);
await ensureTable(rawClient, TABLE);
const registry = new KeyRegistry(client, TABLE);
// Limits no run reaches: the scale run measures the datastore, not the limiter. Those of the
// keys of every case but the Enterprise one are counted on one item, as any key up to the threshold.
const UNLIMITED = { perMinute: SHARD_THRESHOLD_PER_MINUTE, perDay: 1_000_000_000 };
const keys = Array.from({ length: SCALE.keys }, (_, n) => `scale-key-${n}-${randomUUID()}`);
const rotatingKeys = Array.from({ length: SCALE.rotatingKeys }, (_, n) => `scale-rotating-${n}-${randomUUID()}`);
for (let start = 0; start < keys.length + rotatingKeys.length; start += 50) {
  await Promise.all(
    [...keys, ...rotatingKeys].slice(start, start + 50).map((key) => registry.register(key, 'enterprise', UNLIMITED)),
  );
}
const enterpriseKey = `scale-enterprise-${randomUUID()}`;
await registry.register(enterpriseKey, 'enterprise', ENTERPRISE_ABOVE_ONE_PARTITION);
const repository = new DynamoDbPetRepository(rawClient, TABLE);
const petIds: number[] = [];
for (let n = 0; n < SCALE.seedPets; n += 1) {
  petIds.push((await repository.create({ name: `Seed ${n}`, categoryId: (n % 5) + 1, status: seededStatus(n) })).id);
}

// The server lists as deployed: pets show a settle time after their id was drawn, and busy first
// pages come from its one cache (SCALE.instances).
const server = await startLocalServer({ port: 0 });
await new Promise((resolve) => setTimeout(resolve, LISTING_SETTLE_MS + 100));
const cursors = await cursorsOfTheListing(`limit=${SCALE.pageSize}`, SCALE.seedPets);
const commonStatusCursors = await cursorsOfTheListing(`limit=${SCALE.pageSize}&status=available`, SCALE.seedPets * 0.9);
const hundredCursors = (await cursorsOfTheListing('limit=100', SCALE.seedPets)).slice(0, 5);
const fixtures: ScaleFixtures = {
  keys,
  rotatingKeys,
  petIds,
  cursors,
  commonStatusCursors,
  hundredCursors,
  enterpriseKey,
};

/** Walks a listing of the seeded pets (`query`, of `pets` pets) through the server, as a client does: the cursor of each page after the first. */
async function cursorsOfTheListing(query: string, pets: number): Promise<string[]> {
  const limit = Number(new URLSearchParams(query).get('limit'));
  const found: string[] = [];
  let next: string | undefined = `${server.baseUrl}/pets?${query}`;
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: { authorization: `Bearer ${keys[0]}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`listing the seeded pets: ${response.status}`);
    next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    if (next !== undefined) found.push(new URL(next).searchParams.get('cursor') as string);
  }
  if (found.length !== Math.ceil(pets / limit) - 1)
    throw new Error(`the seeded listing (${query}) gave ${found.length} cursors`);
  return found;
}

interface Step extends ScaleStep {
  readonly use: PartitionUse[];
  /** Whether any partition refused a request of the step, its late retries included. */
  readonly partitionRefused: boolean;
}

/**
 * Offers `rate` requests a second, open-loop, for the warm-up and then the counted step; waits for
 * every answer. Only the requests sent after the warm-up count, and the partitions' use from then.
 */
async function offer(scaleCase: ScaleCase, rate: number, counter: { n: number }): Promise<Step> {
  // Empty buckets: a partition serves its rate from the start, with no second of burst saved up to
  // carry a rate above it through a short step.
  model.reset({ buckets: 'empty' });
  const warmUp = Math.round(rate * SCALE.warmUpSeconds);
  const total = warmUp + Math.round(rate * SCALE.stepSeconds);
  const statuses = new Map<string, number>();
  const latencies: number[] = [];
  const sent: Promise<void>[] = [];
  const started = performance.now();
  let firstCounted = 0;
  let lastSent = 0;
  for (let n = 0; n < total; n += 1) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (n === warmUp) model.reset({ buckets: 'keep' });
    const request = scaleCase.request(counter.n++, fixtures);
    const at = performance.now();
    const counted = n >= warmUp;
    if (n === warmUp) firstCounted = at;
    lastSent = at;
    sent.push(
      send(request).then((status) => {
        if (!counted) return;
        latencies.push(performance.now() - at);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
    );
  }
  // The partitions' use while the counted requests were sent (their late retries aside).
  const use = model.use().slice(0, 4);
  const firstThrottled = model.throttledInOrder()[0];
  const mostThrottled = model.use().find((partition) => partition.throttled > 0)?.partition;
  await Promise.all(sent);
  // A partition that refused only the late retries is named too (when none refused before).
  const partitionRefused = model.throttledInOrder().length > 0;
  const lateFirstThrottled = model.throttledInOrder()[0];
  const lateMostThrottled = model.use().find((partition) => partition.throttled > 0)?.partition;
  latencies.sort((a, b) => a - b);
  const throttledAnswers = statuses.get('503') ?? 0;
  const otherAnswers = Object.fromEntries(
    [...statuses].filter(([status]) => status !== '503' && !scaleCase.success.includes(Number(status))),
  );
  const sentCount = total - warmUp;
  return {
    rate,
    // The rate the counted requests really left at: one process sends them and serves them, so a
    // late timer would offer the partitions less than `rate`.
    achievedRate: sentCount > 1 ? Math.round(((sentCount - 1) * 10_000) / (lastSent - firstCounted)) / 10 : rate,
    sent: sentCount,
    throttledAnswers,
    otherAnswers,
    p50Ms: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    firstThrottled: firstThrottled ?? lateFirstThrottled,
    mostThrottled: mostThrottled ?? lateMostThrottled,
    use,
    partitionRefused,
  };
}

async function send({ method, path, key, body, headers = {} }: ScaleRequest): Promise<string> {
  try {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(SCALE.answerTimeoutMs),
    });
    await response.arrayBuffer();
    return String(response.status);
  } catch {
    return 'no answer';
  }
}

/**
 * Why a step was not sustained: its 503s (a partition's), other answers, or this machine (not
 * sending at the rate, or 503s while no partition refused anything: answers too late).
 */
function failureOf(step: Step): 'throttled' | 'errors' | 'machine' | undefined {
  if (step.throttledAnswers >= SCALE.throttledAnswersBelow * step.sent)
    return step.partitionRefused ? 'throttled' : 'machine';
  if (Object.keys(step.otherAnswers).length > 0) return 'errors';
  if (step.achievedRate < SCALE.achievedRateAtLeast * step.rate) return 'machine';
  return undefined;
}

/** Raises the rate by half until a step fails, then halves the gap between the last good and the first bad rate. */
async function ceilingOf(scaleCase: ScaleCase & { name: ScaleCaseName }): Promise<ScaleCaseResult> {
  model.factor = scaleCase.factor;
  const counter = { n: 0 };
  const steps: Step[] = [];
  let good: Step | undefined;
  let bad: Step | undefined;
  let rate = scaleCase.startRate;
  while (bad === undefined) {
    const step = await offer(scaleCase, rate, counter);
    steps.push(step);
    if (failureOf(step) === undefined) good = step;
    else bad = step;
    if (rate >= scaleCase.maxRate) break;
    // The last step is the case's cap itself.
    rate = Math.min(scaleCase.maxRate, Math.round(rate * 1.5 * 10) / 10);
  }
  for (let refine = 0; refine < SCALE.refinements && good !== undefined && bad !== undefined; refine += 1) {
    const middle = Math.round(((good.rate + bad.rate) / 2) * 10) / 10;
    if (middle === good.rate || middle === bad.rate) break;
    const step = await offer(scaleCase, middle, counter);
    steps.push(step);
    if (failureOf(step) === undefined) good = step;
    else bad = step;
  }
  return {
    name: scaleCase.name,
    description: scaleCase.description,
    factor: scaleCase.factor,
    target: 'target' in scaleCase ? scaleCase.target : undefined,
    sustainedRate: good?.rate ?? 0,
    reachedCap: bad === undefined,
    failure: bad === undefined ? undefined : failureOf(bad),
    firstThrottled: bad?.firstThrottled,
    mostThrottled: bad?.mostThrottled,
    refusedAt: bad?.rate,
    atCeiling: good?.use ?? [],
    steps: steps.map(({ use: _use, partitionRefused: _refused, ...step }) => step),
  };
}

try {
  const results = [];
  for (const scaleCase of SCALE_CASES) {
    if (only.length > 0 && !only.includes(scaleCase.name)) continue;
    process.stderr.write(`  scale: ${scaleCase.name} at 1/${scaleCase.factor}...\n`);
    results.push(await ceilingOf(scaleCase));
  }
  process.stdout.write(`${JSON.stringify({ scale: SCALE, cases: results })}\n`);
} finally {
  await server.close();
  await model.close();
}
