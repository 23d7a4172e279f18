import { parseArgs } from 'node:util';
import { OPERATION_IDS } from '../functions/table';
import { BODIES_FUNCTION, BODY_SHAPE_NAMES } from './body-shapes';
import { ALL_CASES, BENCH_FUNCTIONS, type BenchFunction } from './cases';
import { SCALE_CASES } from './scale-cases';

/**
 * `npm run bench`'s arguments (bench/run.ts):
 *
 *   npm run bench                                        every part (but profile) of every function: rewrites the results
 *   npm run bench -- --only <part> [--only <part>]       those parts of every function, printed: writes nothing
 *   npm run bench -- --operation <id> [--operation <id>] [--only <part> ...]
 *                                                        those functions' cases in those parts (all but profile
 *                                                        without --only), merged into the results (the profile
 *                                                        alone: printed)
 *   npm run bench -- --only scale --case <name> ...      those scale cases, printed: writes nothing
 */
export const PARTS = ['cold', 'overhead', 'bodies', 'e2e', 'requests', 'load', 'scale', 'profile'] as const;
export type Part = (typeof PARTS)[number];
/** Parts a run without `--only` leaves out. */
export const ON_REQUEST_ONLY: readonly Part[] = ['profile'];

export interface BenchArguments {
  readonly parts: readonly Part[];
  /** The functions whose cases run: every one, or those of `--operation`. */
  readonly functions: readonly BenchFunction[];
  /** A whole run rewrites the results; `--operation` merges its figures into them; `--only` alone prints them. */
  readonly write: 'all' | 'merge' | 'none';
  /** `--case`: the scale cases to run (by name); undefined: those of the functions. */
  readonly scaleCases: readonly string[] | undefined;
}

/** What a part measures of a function: its case names (the scale part: its scale cases); none, and the part has nothing of it. */
export function measuredIn(part: Part, fn: BenchFunction): string[] {
  const cases = ALL_CASES.filter((benchCase) => benchCase.fn === fn);
  switch (part) {
    case 'cold':
    case 'profile':
    case 'e2e':
      // The function's main case.
      return cases.length === 0 ? [] : [fn];
    case 'overhead':
      return cases.filter((benchCase) => benchCase.timedWithoutIo).map((benchCase) => benchCase.name);
    case 'requests':
      return cases.flatMap((benchCase) => (benchCase.dynamoDb === undefined ? [] : [benchCase.name]));
    case 'bodies':
      // Its body shapes (bench/body-shapes.ts): createPet's alone.
      return fn === BODIES_FUNCTION ? [...BODY_SHAPE_NAMES] : [];
    case 'load':
      // The load run sends each operation's main case; the authorizer runs in front of each, with no row of its own.
      return (OPERATION_IDS as readonly string[]).includes(fn) ? [fn] : [];
    case 'scale':
      return SCALE_CASES.filter((scaleCase) => (scaleCase.functions as readonly string[]).includes(fn)).map(
        (scaleCase) => scaleCase.name,
      );
  }
}

const oneOf = (values: readonly string[]) => values.join(', ');

export function parseBenchArguments(args: readonly string[]): BenchArguments {
  let values: { only?: string[]; operation?: string[]; case?: string[] };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        only: { type: 'string', multiple: true },
        operation: { type: 'string', multiple: true },
        case: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}: npm run bench takes --only <part>, --operation <function> and --case <scale case>`,
    );
  }
  for (const part of values.only ?? []) {
    if (!(PARTS as readonly string[]).includes(part))
      throw new Error(`--only ${part}: no such part; the parts are ${oneOf(PARTS)}`);
  }
  for (const fn of values.operation ?? []) {
    if (!(BENCH_FUNCTIONS as readonly string[]).includes(fn))
      throw new Error(`--operation ${fn}: the bench runs no such function; it runs ${oneOf(BENCH_FUNCTIONS)}`);
  }
  const scaleNames = SCALE_CASES.map((scaleCase) => scaleCase.name as string);
  for (const name of values.case ?? []) {
    if (!scaleNames.includes(name))
      throw new Error(`--case ${name}: no such scale case; they are ${oneOf(scaleNames)}`);
  }
  const only = values.only === undefined ? undefined : [...new Set(values.only as Part[])];
  const operations = values.operation === undefined ? undefined : [...new Set(values.operation as BenchFunction[])];
  if (operations === undefined) {
    return {
      parts: only ?? PARTS.filter((part) => !ON_REQUEST_ONLY.includes(part)),
      functions: BENCH_FUNCTIONS,
      write: only === undefined ? 'all' : 'none',
      scaleCases: values.case,
    };
  }
  // A function's figures are merged whole, part by part: its scale figures are all of its scale cases (the mix among them).
  if (values.case !== undefined)
    throw new Error(
      '--case picks scale cases for a run that writes nothing; with --operation, the scale part runs every scale case of the function (bench/scale-cases.ts): leave --case out',
    );
  const parts =
    only ??
    PARTS.filter((part) => !ON_REQUEST_ONLY.includes(part) && operations.some((fn) => measuredIn(part, fn).length > 0));
  for (const part of only ?? []) {
    for (const fn of operations) {
      if (measuredIn(part, fn).length === 0)
        throw new Error(
          `--only ${part} --operation ${fn}: that part measures nothing of ${fn}${part === 'load' ? " (the load run sends the operations' main cases; the authorizer runs in front of each, with no row of its own)" : ''}`,
        );
    }
  }
  // The profile alone only prints: nothing to merge.
  return {
    parts,
    functions: operations,
    write: parts.every((part) => ON_REQUEST_ONLY.includes(part)) ? 'none' : 'merge',
    scaleCases: undefined,
  };
}
