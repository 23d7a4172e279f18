import { randomUUID } from 'node:crypto';
import { BENCH_FUNCTIONS, type BenchFunction } from './cases';

/**
 * The scale run's cases (bench/scale.ts): what is offered, from which keys, and at which factor
 * of the partition model. A case's factor keeps its rates on this machine between a few and about
 * sixty requests a second (this two-core machine serves some 60 to 70 a second of the mix, and
 * answers late beyond): high enough to count 1 % in a step, low enough that DynamoDB Local, the
 * server and the load fit on two cores, and high enough that the case's target (at DynamoDB's
 * rates) and some way beyond it can be offered here. Cases that write stay at 1/200 or below: a
 * partition's bucket holds one second of its divided rate, and at 1/400 that is 2.5 write units,
 * so that a keyed create (2 units on its shard) finds it short after any other write there, a
 * granularity DynamoDB's 1,000 units do not have (the mix at 1/400 was refused at 6,000 a second,
 * at 1/200 it sustained 13,580).
 */
export const SCALE = {
  /** Seconds each offered rate is held and counted, after a warm-up (the caches filled, the SDK's first retries done). */
  stepSeconds: 6,
  warmUpSeconds: 2,
  /** A rate is sustained when fewer than this share of its answers are 503 (and none is anything else unexpected). */
  throttledAnswersBelow: 0.01,
  /** ... and this machine sent its requests at this share of the rate at least. */
  achievedRateAtLeast: 0.97,
  /** Halvings of the gap between the last sustained and the first refused rate. */
  refinements: 2,
  /**
   * The instances the figures stand for: the local server is one process, so one instance of each
   * function, and so one cache of busy first pages (shared/pets/first-page-cache.ts) for all the
   * load. A deployed API at these rates runs many instances, each reading its own first pages.
   */
  instances: 1,
  /** API keys of the "many keys" cases, used in turn. */
  keys: 20,
  /** Keys of the key-lookup case, each used once per pass: more than its rate × the authorizer's 30 s cache. */
  rotatingKeys: 4_000,
  /** Seeded pets: enough that a page of 100 after any of the first five cursors reads each shard's whole share (28). */
  seedPets: 800,
  /** The page size of every listing but those of 100. */
  pageSize: 20,
  /** A request without an answer by then counts as failed (the functions answer within 10 s). */
  answerTimeoutMs: 20_000,
} as const;

export interface ScaleRequest {
  readonly method: 'GET' | 'POST';
  /** Below the API's base URL. */
  readonly path: string;
  readonly key: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** What the cases' requests draw on, made before the run (bench/scale.ts). */
export interface ScaleFixtures {
  readonly keys: readonly string[];
  readonly rotatingKeys: readonly string[];
  /** The seeded pets' ids (ids are time-ordered: only the service knows them). */
  readonly petIds: readonly number[];
  /** The `cursor` of every page after the first of the seeded pets (limit pageSize), as the service's Link headers gave them. */
  readonly cursors: readonly string[];
  /** The same for the listing of `available` pets (limit pageSize). */
  readonly commonStatusCursors: readonly string[];
  /** The first five of the listing by pages of 100: each leaves at least 300 pets after it. */
  readonly hundredCursors: readonly string[];
  /** A custom Enterprise key of ENTERPRISE_ABOVE_ONE_PARTITION: counted on shards. */
  readonly enterpriseKey: string;
}

/**
 * The limits of the Enterprise key alone: 120,000 a minute (2,000 a second), above what one
 * counter item takes, so counted on 4 shards (shared/limits/counter-shards.ts). This machine's
 * rates never reach them: the run measures the datastore.
 */
export const ENTERPRISE_ABOVE_ONE_PARTITION = { perMinute: 120_000, perDay: 1_000_000_000 } as const;

export interface ScaleCase {
  readonly name: string;
  readonly description: string;
  /** The partition model's factor: DynamoDB's per-partition rates divided by this. */
  readonly factor: number;
  /** Requests a second on this machine: the first offered, and the highest tried. */
  readonly startRate: number;
  readonly maxRate: number;
  /** The rate it should sustain at DynamoDB's rates (requests a second), if it has a target. */
  readonly target?: number;
  readonly success: readonly number[];
  /**
   * The functions whose figures it gives: `npm run bench -- --only scale --operation <id>` runs
   * the cases naming it (the mix names every function, so a re-measured function's mix is too).
   */
  readonly functions: readonly BenchFunction[];
  /** Settings the server runs with for this case (a server of its own: bench/run.ts runs such cases apart). */
  readonly env?: Readonly<Record<string, string>>;
  /** The n-th request of the case (n counts across its steps). */
  request(n: number, fixtures: ScaleFixtures): ScaleRequest;
}

const STATUSES = ['available', 'pending', 'sold'] as const;
const many = (n: number, { keys }: ScaleFixtures) => keys[n % keys.length] as string;
const one = (_: number, { keys }: ScaleFixtures) => keys[0] as string;
const anyOf = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;
const newPet = (n: number) => ({ name: `Scale ${n}`, categoryId: 1 + (n % 5) });

const getPet = (key: string, { petIds }: ScaleFixtures): ScaleRequest => ({
  method: 'GET',
  path: `/pets/${anyOf(petIds)}`,
  key,
});
/** A first page: what every walk starts with, and what a busy instance serves from memory. */
const firstPage = (key: string): ScaleRequest => ({ method: 'GET', path: `/pets?limit=${SCALE.pageSize}`, key });
/** A page after the first (any of the seeded listing's): read from the shards every time. */
const pageAfterCursor = (key: string, { cursors }: ScaleFixtures): ScaleRequest => ({
  method: 'GET',
  path: `/pets?limit=${SCALE.pageSize}&cursor=${encodeURIComponent(anyOf(cursors))}`,
  key,
});
const listByStatus = (n: number, key: string): ScaleRequest => ({
  method: 'GET',
  path: `/pets?limit=${SCALE.pageSize}&status=${STATUSES[n % STATUSES.length]}`,
  key,
});
/** The seeded pets' statuses: `available` for 90 %, the rest `pending` and `sold` in turn. */
export const seededStatus = (n: number): (typeof STATUSES)[number] =>
  n % 20 === 0 ? 'pending' : n % 20 === 10 ? 'sold' : 'available';
const commonStatusPage = (key: string): ScaleRequest => ({
  method: 'GET',
  path: `/pets?limit=${SCALE.pageSize}&status=available`,
  key,
});
const commonStatusAfterCursor = (key: string, { commonStatusCursors }: ScaleFixtures): ScaleRequest => ({
  method: 'GET',
  path: `/pets?limit=${SCALE.pageSize}&status=available&cursor=${encodeURIComponent(anyOf(commonStatusCursors))}`,
  key,
});
const hundredAfterCursor = (key: string, { hundredCursors }: ScaleFixtures): ScaleRequest => ({
  method: 'GET',
  path: `/pets?limit=100&cursor=${encodeURIComponent(anyOf(hundredCursors))}`,
  key,
});
const onePet = (key: string, { petIds }: ScaleFixtures): ScaleRequest => ({
  method: 'GET',
  path: `/pets/${petIds[0]}`,
  key,
});
const createPet = (n: number, key: string): ScaleRequest => ({ method: 'POST', path: '/pets', key, body: newPet(n) });
const keyedCreatePet = (n: number, key: string): ScaleRequest => ({
  ...createPet(n, key),
  headers: { 'idempotency-key': randomUUID() },
});

export const SCALE_CASES = [
  {
    name: 'getPet',
    functions: ['getPet'],
    description: 'getPet, 20 keys',
    factor: 400,
    startRate: 20,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => getPet(many(n, fixtures), fixtures),
  },
  {
    name: 'getPetOnePet',
    functions: ['getPet'],
    description: 'getPet, one pet (every request for the same id), 20 keys',
    factor: 400,
    startRate: 20,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => onePet(many(n, fixtures), fixtures),
  },
  {
    name: 'listPets',
    functions: ['listPets'],
    description: `listPets first pages (limit ${SCALE.pageSize}), 20 keys`,
    factor: 400,
    startRate: 20,
    maxRate: 60,
    success: [200],
    request: (n, fixtures) => firstPage(many(n, fixtures)),
  },
  {
    name: 'listPetsAfterCursor',
    functions: ['listPets'],
    description: `listPets pages that follow a cursor (limit ${SCALE.pageSize}), 20 keys`,
    factor: 200,
    startRate: 15,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => pageAfterCursor(many(n, fixtures), fixtures),
  },
  {
    name: 'listPetsHundredAfterCursor',
    functions: ['listPets'],
    description:
      "listPets, limit 100, after a cursor (each listing set in turn: the table's shards and petsById's), 20 keys",
    factor: 400,
    startRate: 15,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => hundredAfterCursor(many(n, fixtures), fixtures),
  },
  {
    name: 'listPetsCommonStatus',
    functions: ['listPets'],
    description: `listPets by a status 90 % of pets have, first pages (limit ${SCALE.pageSize}), 20 keys`,
    factor: 400,
    startRate: 20,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => commonStatusPage(many(n, fixtures)),
  },
  {
    name: 'listPetsCommonStatusAfterCursor',
    functions: ['listPets'],
    description: `listPets by a status 90 % of pets have, pages that follow a cursor (limit ${SCALE.pageSize}; petsByStatus and petsByStatusAgain in turn), 20 keys`,
    factor: 400,
    startRate: 15,
    maxRate: 60,
    target: 10_000,
    success: [200],
    request: (n, fixtures) => commonStatusAfterCursor(many(n, fixtures), fixtures),
  },
  {
    name: 'listPetsCommonStatusOneSet',
    functions: ['listPets'],
    description: `listPets by a status 90 % of pets have, pages that follow a cursor (limit ${SCALE.pageSize}), with one listing set (LISTING_SETS=1: petsByStatus alone), 20 keys`,
    env: { LISTING_SETS: '1' },
    factor: 400,
    startRate: 8,
    maxRate: 60,
    success: [200],
    request: (n, fixtures) => commonStatusAfterCursor(many(n, fixtures), fixtures),
  },
  {
    name: 'listPetsByStatus',
    functions: ['listPets'],
    description: `listPets first pages with status (the three in turn, limit ${SCALE.pageSize}), 20 keys`,
    factor: 400,
    startRate: 20,
    maxRate: 60,
    success: [200],
    request: (n, fixtures) => listByStatus(n, many(n, fixtures)),
  },
  {
    name: 'createPet',
    functions: ['createPet'],
    description: 'createPet, 20 keys',
    factor: 200,
    startRate: 15,
    maxRate: 60,
    target: 4_000,
    success: [201],
    request: (n, fixtures) => createPet(n, many(n, fixtures)),
  },
  {
    name: 'keyedCreatePet',
    functions: ['createPet'],
    description: 'createPet with Idempotency-Key, 20 keys',
    factor: 100,
    startRate: 15,
    maxRate: 60,
    target: 3_500,
    success: [201],
    request: (n, fixtures) => keyedCreatePet(n, many(n, fixtures)),
  },
  {
    name: 'mix',
    // Every operation's requests, each through the authorizer.
    functions: BENCH_FUNCTIONS,
    description:
      'the mix: 35 % listPets first pages, 35 % listPets pages that follow a cursor, 10 % createPet, 10 % keyed createPet, 10 % getPet; 20 keys',
    factor: 200,
    startRate: 35,
    maxRate: 80,
    target: 10_000,
    success: [200, 201],
    request: (n, fixtures) => {
      const key = many(n, fixtures);
      const slot = n % 20;
      if (slot < 7) return firstPage(key);
      if (slot < 14) return pageAfterCursor(key, fixtures);
      return slot < 16 ? createPet(n, key) : slot < 18 ? keyedCreatePet(n, key) : getPet(key, fixtures);
    },
  },
  {
    name: 'oneKeyGetPet',
    functions: ['getPet'],
    description: 'getPet, one key alone',
    factor: 50,
    startRate: 8,
    maxRate: 40,
    success: [200],
    request: (n, fixtures) => getPet(one(n, fixtures), fixtures),
  },
  {
    name: 'oneKeyKeyedCreatePet',
    functions: ['createPet'],
    description: 'createPet with Idempotency-Key, one key alone',
    factor: 50,
    startRate: 8,
    maxRate: 40,
    success: [201],
    request: (n, fixtures) => keyedCreatePet(n, one(n, fixtures)),
  },
  {
    name: 'oneEnterpriseKeyGetPet',
    functions: ['getPet'],
    description: 'getPet, one Enterprise key of 120,000 a minute alone (its counts on 4 shards)',
    factor: 50,
    startRate: 20,
    maxRate: 70,
    target: 2_000,
    success: [200],
    request: (_, fixtures) => getPet(fixtures.enterpriseKey, fixtures),
  },
  {
    name: 'keyLookups',
    functions: ['listPets', 'authorizer'],
    description:
      "listPets first pages with status, each request with a key the authorizer's cache does not hold (a key lookup each)",
    factor: 400,
    startRate: 20,
    maxRate: 60,
    success: [200],
    request: (n, fixtures) => listByStatus(n, fixtures.rotatingKeys[n % fixtures.rotatingKeys.length] as string),
  },
] as const satisfies readonly ScaleCase[];

export type ScaleCaseName = (typeof SCALE_CASES)[number]['name'];

/** What a partition consumed in a step, as the model counts it (test/support/partition-model.ts). */
export interface ScalePartitionUse {
  readonly partition: string;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly throttled: number;
}

export interface ScaleStep {
  readonly rate: number;
  /** The rate the counted requests really left at. */
  readonly achievedRate: number;
  readonly sent: number;
  readonly throttledAnswers: number;
  readonly otherAnswers: Record<string, number>;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly firstThrottled: string | undefined;
  /** The partition that refused the most requests. */
  readonly mostThrottled: string | undefined;
}

/** One case's figure: printed by bench/scale.ts, kept in bench/results.json. */
export interface ScaleCaseResult {
  readonly name: ScaleCaseName;
  readonly description: string;
  readonly factor: number;
  /** The case's target at DynamoDB's rates (requests a second), if it has one. */
  readonly target?: number | undefined;
  /** Requests a second on this machine (× factor for DynamoDB's rates). */
  readonly sustainedRate: number;
  /** No step failed up to the case's highest rate (maxRate): the figure is a floor. */
  readonly reachedCap: boolean;
  /** Why the first rate above the figure failed: 503s (a partition), other answers, or this machine falling behind. */
  readonly failure: 'throttled' | 'errors' | 'machine' | undefined;
  readonly firstThrottled: string | undefined;
  /** The partition that refused the most requests at that rate. */
  readonly mostThrottled: string | undefined;
  readonly refusedAt: number | undefined;
  /** The busiest partitions during the highest sustained step. */
  readonly atCeiling: readonly ScalePartitionUse[];
  readonly steps: readonly ScaleStep[];
}

export interface ScaleResult {
  readonly scale: typeof SCALE;
  readonly cases: readonly ScaleCaseResult[];
}
