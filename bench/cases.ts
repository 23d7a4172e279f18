/**
 * What the bench runs, per function: the declared operations (functions/table.ts) and the
 * authorizer, each with its cases. A case is a request (an event spec the children turn into API
 * Gateway's event: bench/children/events.mjs), the data each request needs made before it (its
 * setup, bench/setups.ts: a fresh pet to read, or to use up), the status it must answer, whether
 * the stack overhead is timed on it (DynamoDB stubbed), and, when its DynamoDB requests are measured, their
 * label, the round trips it may wait for and its share in the cost mix (bench/cost.ts). From this
 * follow the bundles, the cold starts, the overhead runs, the end-to-end runs, the DynamoDB table
 * and its targets, the load run, the cost table and the parity test of the baseline.
 *
 * An operation's cases are in its declaration (functions/<operationId>/operation.ts: a declaration
 * without them does not compile, a case answering a status it does not declare fails here); one without a
 * baseline twin (`functions/<id>/baseline.ts`) fails test/bench/baseline-parity.test.ts, and a DynamoDB
 * right it declares that the overhead stub cannot answer fails test/bench/cases.test.ts.
 */
import { join } from 'node:path';
import { FUNCTIONS, OPERATION_IDS, OPERATIONS, type OperationDeclaration, type OperationId } from '../functions/table';
import type { BenchCase } from './bench-case';
import { withFill, type AuthorizerEventSpec } from './children/events.mjs';
import { BENCH_SETUPS } from './setups';

export type { BenchCase } from './bench-case';

/** The functions the bench compares with a baseline: every operation, and the authorizer in front of them. */
export type BenchFunction = OperationId | 'authorizer';
export const BENCH_FUNCTIONS: readonly BenchFunction[] = [...OPERATION_IDS, 'authorizer'];

export interface FunctionCases {
  /** The case its cold starts, warm end-to-end requests and load run serve. */
  readonly main: string;
  readonly cases: Readonly<Record<string, BenchCase>>;
}

/** A function's cases, `main` one of them. */
function casesOf<const Cases extends Record<string, BenchCase>>(
  main: NoInfer<keyof Cases & string>,
  cases: Cases,
): { readonly main: string; readonly cases: Cases } {
  return { main, cases };
}

/** The authorizer asked about a listing. */
function authorization(
  key: AuthorizerEventSpec['key'],
  spec: Pick<AuthorizerEventSpec, 'fromRefusedAddress'> = {},
): AuthorizerEventSpec {
  const { method, path } = OPERATIONS.listPets.route;
  return { type: 'authorizer', method, resource: path, key, ...spec };
}

/**
 * An operation's cases, from its declaration (functions/<operationId>/operation.ts): each request
 * on its route, and each status one the declaration names (its success or one of its errors).
 */
function operationCases(operationId: OperationId): FunctionCases {
  const { route, success, errors, bench } = OPERATIONS[operationId] as OperationDeclaration;
  const statuses = [success.status, ...errors] as readonly number[];
  const cases: Record<string, BenchCase> = {};
  for (const [name, { request, ...rest }] of Object.entries(bench.cases)) {
    if (!statuses.includes(rest.status))
      throw new Error(
        `functions/${operationId}/operation.ts: the bench case ${name} answers ${rest.status}, which the declaration names neither as its success nor among its errors (${statuses.join(', ')})`,
      );
    cases[name] = { ...rest, event: { type: 'request', method: route.method, resource: route.path, ...request } };
  }
  if (!Object.hasOwn(cases, bench.main))
    throw new Error(`functions/${operationId}/operation.ts: its main bench case ${bench.main} is not among its cases`);
  return { main: bench.main, cases };
}

/**
 * The round trips: an operation counts its key's request while it reads (one; a page's shard
 * queries go together); a create counts (and reads the key's record meanwhile), then draws the id
 * and writes (two); the authorizer looks a known key up (one), and without a valid key then counts
 * the address (two). The operations' cases are in their declarations.
 */
export const BENCH_CASES: Readonly<Record<BenchFunction, FunctionCases>> = {
  ...(Object.fromEntries(OPERATION_IDS.map((operationId) => [operationId, operationCases(operationId)])) as Record<
    OperationId,
    FunctionCases
  >),
  authorizer: casesOf('authorize', {
    authorize: {
      event: authorization('bench'),
      status: 200,
      timedWithoutIo: true,
      dynamoDb: { label: 'authorizer (a known key)', maxRoundTrips: 1 },
    },
    authorizeUnknown: {
      event: authorization('unknown'),
      status: 401,
      timedWithoutIo: true,
      dynamoDb: { label: 'authorizer (no valid key)', maxRoundTrips: 2 },
    },
    // Needs an address over its allowance: the parity test alone runs it.
    authorizeRefused: {
      event: authorization('unknown', { fromRefusedAddress: true }),
      status: 429,
      timedWithoutIo: false,
    },
  }),
};

export interface NamedCase extends BenchCase {
  /** Unique over all functions: the overhead table's row. */
  readonly name: string;
  readonly fn: BenchFunction;
}

/** Every case, function by function in the declarations' order; a case with a setup with its placeholder filled in (a runner with a table fills its own data over it). */
export const ALL_CASES: readonly NamedCase[] = BENCH_FUNCTIONS.flatMap((fn) => {
  // The type checker already refuses this; said again for a run without it (tsx, vitest).
  if (!Object.hasOwn(BENCH_CASES, fn))
    throw new Error(`bench/cases.ts has no cases for ${fn}: every declared operation needs its cases there`);
  return Object.entries(BENCH_CASES[fn].cases as Readonly<Record<string, BenchCase>>).map(([name, benchCase]) => {
    if (benchCase.setup !== undefined && !Object.hasOwn(BENCH_SETUPS, benchCase.setup))
      throw new Error(
        `bench/cases.ts: ${name} names the setup ${benchCase.setup}, which bench/setups.ts does not have`,
      );
    const event =
      benchCase.setup === undefined
        ? benchCase.event
        : withFill(benchCase.event, BENCH_SETUPS[benchCase.setup].placeholder);
    return { ...benchCase, event, name, fn };
  });
});

for (const [what, values] of [
  ['case name', ALL_CASES.map((benchCase) => benchCase.name)],
  [
    'DynamoDB label',
    ALL_CASES.flatMap((benchCase) => (benchCase.dynamoDb === undefined ? [] : [benchCase.dynamoDb.label])),
  ],
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
