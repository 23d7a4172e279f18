import { PET_SHARDS } from '../shared/dynamodb/table-definition';
import { shareOf } from '../shared/pets/page-merge';
/**
 * What the bench runs, per function: the declared operations (shared/functions.ts) and the
 * authorizer, each with its cases. A case is a request (an event spec the children turn into API
 * Gateway's event: bench/children/events.mjs), the data each request needs made before it (its
 * setup, bench/setups.ts: a fresh pet to read, or to use up), the status it must answer, whether
 * the stack overhead is timed on it (DynamoDB stubbed), and, when its DynamoDB requests are measured, their
 * label, the round trips it may wait for and its share in the cost mix (bench/cost.ts). From this
 * follow the bundles, the cold starts, the overhead runs, the end-to-end runs, the DynamoDB table
 * and its targets, the load run, the cost table and the parity test of the baseline.
 *
 * A declared operation without cases here is a type error (`satisfies` below); one without a
 * baseline twin (`functions/<id>/baseline.ts`) fails test/bench/baseline-parity.test.ts, and a DynamoDB
 * right it declares that the overhead stub cannot answer fails test/bench/cases.test.ts.
 */
import { join } from 'node:path';
import { FUNCTIONS, OPERATION_IDS, OPERATIONS, type OperationId } from '../shared/functions';
import { withFill, type AuthorizerEventSpec, type EventSpec, type RequestEventSpec } from './children/events.mjs';
import { BENCH_SETUPS, type SetupName } from './setups';

/** The functions the bench compares with a baseline: every operation, and the authorizer in front of them. */
export type BenchFunction = OperationId | 'authorizer';
export const BENCH_FUNCTIONS: readonly BenchFunction[] = [...OPERATION_IDS, 'authorizer'];

export interface BenchCase {
  readonly event: EventSpec;
  /**
   * Data each request needs, made before it and not timed (bench/setups.ts: a fresh pet, its id
   * filled into the path): a request that reads or uses up data of its own. Every runner sending
   * the case to a table makes it; where none is made (the overhead's stub) the setup's placeholder is sent.
   */
  readonly setup?: SetupName;
  /** What it answers; for the authorizer, what API Gateway then answers: 200 Allow, 401 Unauthorized, 429 Deny. */
  readonly status: number;
  /** Timed with DynamoDB answered by a stub (the overhead table, under the case's name). */
  readonly timedWithoutIo: boolean;
  /** Measured through the recording proxy against DynamoDB Local (the DynamoDB table, under its label). */
  readonly dynamoDb?: {
    readonly label: string;
    /** The target: the round trips to DynamoDB it waits for, at most. */
    readonly maxRoundTrips: number;
    /** The target for a page: the items it reads, at most (each shard's query bounded by its share: shared/pets/page-merge.ts). */
    readonly maxItemsRead?: number;
    /** Its share of the requests in the cost mix (npm run cost); the shares add up to 1. */
    readonly costShare?: number;
  };
}

export interface FunctionCases {
  /** The case its cold starts, warm end-to-end requests and load run serve. */
  readonly main: string;
  readonly cases: Readonly<Record<string, BenchCase>>;
}

/** A function's cases, `main` one of them. */
function casesOf<const Cases extends Record<string, BenchCase>>(main: NoInfer<keyof Cases & string>, cases: Cases): { readonly main: string; readonly cases: Cases } {
  return { main, cases };
}

/** A request on the operation's declared route. */
function request(operation: OperationId, spec: Omit<RequestEventSpec, 'type' | 'method' | 'resource'> = {}): RequestEventSpec {
  const { method, path } = OPERATIONS[operation].route;
  return { type: 'request', method, resource: path, ...spec };
}

/** The authorizer asked about a listing. */
function authorization(key: AuthorizerEventSpec['key'], spec: Pick<AuthorizerEventSpec, 'fromRefusedAddress'> = {}): AuthorizerEventSpec {
  const { method, path } = OPERATIONS.listPets.route;
  return { type: 'authorizer', method, resource: path, key, ...spec };
}

/** Each create names its pet apart (`{n}`: events.mjs). */
const NEW_PET = { name: 'Bench {n}', categoryId: 3, status: 'available' };

/**
 * The round trips: an operation counts its key's request while it reads (one; a page's shard
 * queries go together); a create counts (and reads the key's record meanwhile), then draws the id
 * and writes (two); the authorizer looks a known key up (one), and without a valid key then counts
 * the address (two).
 */
export const BENCH_CASES = {
  listPets: casesOf('listPets', {
    listPets: { event: request('listPets', { query: { limit: '20' } }), status: 200, timedWithoutIo: true, dynamoDb: { label: 'listPets (limit 20)', maxRoundTrips: 1, maxItemsRead: PET_SHARDS * shareOf(20, PET_SHARDS), costShare: 0.7 } },
    listPetsLimit100: { event: request('listPets', { query: { limit: '100' } }), status: 200, timedWithoutIo: false, dynamoDb: { label: 'listPets (limit 100)', maxRoundTrips: 1, maxItemsRead: PET_SHARDS * shareOf(100, PET_SHARDS) } },
    invalid: { event: request('listPets', { query: { limit: '0' } }), status: 400, timedWithoutIo: true },
    unauthorized: { event: request('listPets', { query: { limit: '20' }, withoutAuthorizer: true }), status: 401, timedWithoutIo: true },
  }),
  createPet: casesOf('createPet', {
    createPet: { event: request('createPet', { body: NEW_PET }), status: 201, timedWithoutIo: true, dynamoDb: { label: 'createPet', maxRoundTrips: 2, costShare: 0.1 } },
    createPetWithKey: {
      event: request('createPet', { body: NEW_PET, freshIdempotencyKey: true }),
      status: 201,
      timedWithoutIo: true,
      dynamoDb: { label: 'createPet with Idempotency-Key (first use)', maxRoundTrips: 2, costShare: 0.1 },
    },
  }),
  getPet: casesOf('getPet', {
    // Each request reads a pet of its own, created before it (its id filled into the path).
    getPet: { event: request('getPet'), setup: 'freshPet', status: 200, timedWithoutIo: true, dynamoDb: { label: 'getPet', maxRoundTrips: 1, costShare: 0.1 } },
  }),
  authorizer: casesOf('authorize', {
    authorize: { event: authorization('bench'), status: 200, timedWithoutIo: true, dynamoDb: { label: 'authorizer (a known key)', maxRoundTrips: 1 } },
    authorizeUnknown: { event: authorization('unknown'), status: 401, timedWithoutIo: true, dynamoDb: { label: 'authorizer (no valid key)', maxRoundTrips: 2 } },
    // Needs an address over its allowance: the parity test alone runs it.
    authorizeRefused: { event: authorization('unknown', { fromRefusedAddress: true }), status: 429, timedWithoutIo: false },
  }),
} satisfies Record<BenchFunction, FunctionCases>;

export interface NamedCase extends BenchCase {
  /** Unique over all functions: the overhead table's row. */
  readonly name: string;
  readonly fn: BenchFunction;
}

/** Every case, function by function in the declarations' order; a case with a setup with its placeholder filled in (a runner with a table fills its own data over it). */
export const ALL_CASES: readonly NamedCase[] = BENCH_FUNCTIONS.flatMap((fn) => {
  // The type checker already refuses this; said again for a run without it (tsx, vitest).
  if (!Object.hasOwn(BENCH_CASES, fn)) throw new Error(`bench/cases.ts has no cases for ${fn}: every declared operation needs its cases there`);
  return Object.entries(BENCH_CASES[fn].cases as Readonly<Record<string, BenchCase>>).map(([name, benchCase]) => {
    if (benchCase.setup !== undefined && !Object.hasOwn(BENCH_SETUPS, benchCase.setup)) throw new Error(`bench/cases.ts: ${name} names the setup ${benchCase.setup}, which bench/setups.ts does not have`);
    const event = benchCase.setup === undefined ? benchCase.event : withFill(benchCase.event, BENCH_SETUPS[benchCase.setup].placeholder);
    return { ...benchCase, event, name, fn };
  });
});

for (const [what, values] of [
  ['case name', ALL_CASES.map((benchCase) => benchCase.name)],
  ['DynamoDB label', ALL_CASES.flatMap((benchCase) => (benchCase.dynamoDb === undefined ? [] : [benchCase.dynamoDb.label]))],
] as const) {
  const repeated = values.find((value, index) => values.indexOf(value) !== index);
  if (repeated !== undefined) throw new Error(`bench/cases.ts: the ${what} "${repeated}" is given twice`);
}

/** The case a function's cold starts, end-to-end requests and load run serve. */
export function mainCaseOf(fn: BenchFunction): NamedCase {
  const main = ALL_CASES.find((benchCase) => benchCase.fn === fn && benchCase.name === BENCH_CASES[fn].main);
  if (main === undefined) throw new Error(`bench/cases.ts: ${fn} has no case ${BENCH_CASES[fn].main}`);
  return main;
}

/** The case measured against DynamoDB under this label. */
export function caseLabelled(label: string): NamedCase & { readonly dynamoDb: NonNullable<BenchCase['dynamoDb']> } {
  const found = ALL_CASES.find((benchCase) => benchCase.dynamoDb?.label === label);
  if (found?.dynamoDb === undefined) throw new Error(`bench/cases.ts has no case labelled "${label}"`);
  return found as NamedCase & { readonly dynamoDb: NonNullable<BenchCase['dynamoDb']> };
}

export type Implementation = 'ours' | 'baseline';

/** The module whose `handler` a side runs: ours as declared, the baseline's twin beside it (functions/<name>/baseline.ts). */
export function entryOf(root: string, implementation: Implementation, fn: BenchFunction): string {
  return implementation === 'ours' ? join(root, FUNCTIONS[fn].handler) : join(root, 'functions', fn, 'baseline.ts');
}
