import { randomUUID } from 'node:crypto';

/**
 * The scale run's cases (bench/scale.ts): what is offered, from which keys, and at which factor
 * of the partition model. A case's factor keeps its rates on this machine between a few and about
 * a hundred requests a second: high enough to count 1 % in a step, low enough that DynamoDB
 * Local, the server and the load fit on two cores.
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
  /** API keys of the "many keys" cases, used in turn. */
  keys: 20,
  /** Keys of the key-lookup case, each used once per pass: more than its rate × the authorizer's 30 s cache. */
  rotatingKeys: 4_000,
  seedPets: 300,
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

export interface ScaleKeys {
  readonly keys: readonly string[];
  readonly rotatingKeys: readonly string[];
}

export interface ScaleCase {
  readonly name: string;
  readonly description: string;
  /** The partition model's factor: DynamoDB's per-partition rates divided by this. */
  readonly factor: number;
  /** Requests a second on this machine: the first offered, and the highest tried. */
  readonly startRate: number;
  readonly maxRate: number;
  readonly success: readonly number[];
  /** The n-th request of the case (n counts across its steps). */
  request(n: number, keys: ScaleKeys): ScaleRequest;
}

const STATUSES = ['available', 'pending', 'sold'] as const;
const many = (n: number, { keys }: ScaleKeys) => keys[n % keys.length] as string;
const one = (_: number, { keys }: ScaleKeys) => keys[0] as string;
const petId = () => 1 + Math.floor(Math.random() * SCALE.seedPets);
const newPet = (n: number) => ({ name: `Scale ${n}`, categoryId: 1 + (n % 5) });

const getPet = (key: string): ScaleRequest => ({ method: 'GET', path: `/pets/${petId()}`, key });
const listPets = (key: string): ScaleRequest => ({ method: 'GET', path: '/pets?limit=20', key });
const listByStatus = (n: number, key: string): ScaleRequest => ({ method: 'GET', path: `/pets?limit=20&status=${STATUSES[n % STATUSES.length]}`, key });
const createPet = (n: number, key: string): ScaleRequest => ({ method: 'POST', path: '/pets', key, body: newPet(n) });
const keyedCreatePet = (n: number, key: string): ScaleRequest => ({ ...createPet(n, key), headers: { 'idempotency-key': randomUUID() } });

export const SCALE_CASES = [
  { name: 'getPet', description: 'getPet, 20 keys', factor: 100, startRate: 10, maxRate: 150, success: [200], request: (n, keys) => getPet(many(n, keys)) },
  { name: 'listPets', description: 'listPets (limit 20), 20 keys', factor: 100, startRate: 10, maxRate: 150, success: [200], request: (n, keys) => listPets(many(n, keys)) },
  {
    name: 'listPetsByStatus',
    description: 'listPets with status (the three in turn, limit 20), 20 keys',
    factor: 300,
    startRate: 10,
    maxRate: 150,
    success: [200],
    request: (n, keys) => listByStatus(n, many(n, keys)),
  },
  { name: 'createPet', description: 'createPet, 20 keys', factor: 100, startRate: 4, maxRate: 150, success: [201], request: (n, keys) => createPet(n, many(n, keys)) },
  {
    name: 'keyedCreatePet',
    description: 'createPet with Idempotency-Key, 20 keys',
    factor: 50,
    startRate: 4,
    maxRate: 150,
    success: [201],
    request: (n, keys) => keyedCreatePet(n, many(n, keys)),
  },
  {
    name: 'mix',
    description: 'the mix: 70 % listPets, 10 % createPet, 10 % keyed createPet, 10 % getPet; 20 keys',
    factor: 100,
    startRate: 10,
    maxRate: 150,
    success: [200, 201],
    request: (n, keys) => {
      const key = many(n, keys);
      const slot = n % 10;
      return slot < 7 ? listPets(key) : slot === 7 ? createPet(n, key) : slot === 8 ? keyedCreatePet(n, key) : getPet(key);
    },
  },
  { name: 'oneKeyGetPet', description: 'getPet, one key alone', factor: 100, startRate: 4, maxRate: 150, success: [200], request: (n, keys) => getPet(one(n, keys)) },
  {
    name: 'oneKeyKeyedCreatePet',
    description: 'createPet with Idempotency-Key, one key alone',
    factor: 50,
    startRate: 4,
    maxRate: 150,
    success: [201],
    request: (n, keys) => keyedCreatePet(n, one(n, keys)),
  },
  {
    name: 'keyLookups',
    description: "listPets with status, each request with a key the authorizer's cache does not hold (a key lookup each)",
    factor: 300,
    startRate: 8,
    maxRate: 120,
    success: [200],
    request: (n, keys) => listByStatus(n, keys.rotatingKeys[n % keys.rotatingKeys.length] as string),
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
