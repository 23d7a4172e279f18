/// <reference types="vite/client" />
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestIssue, RequestPartSchema } from '../../shared/validation/request-schema';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../shared/pets/idempotency';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../../functions/table';
import { limitText, newPetJson, petIdText, statusText } from '../support/boundary-values';
import { runSeed } from '../support/run-seed';

/**
 * The functions check their requests with code generated from the zod schemas
 * (functions/<operationId>/request-checks.generated.ts, written by codegen/request-checks.ts), so
 * that no zod schema is built at a cold start; the zod schemas (each operation's declaration) stay
 * the source of the checks, the interface description and the types, and are the oracle here: every
 * generated value, and every odd one below, gets the same answer from both, the value it becomes or
 * the same issues in the same order (code, path, message and unknown members: all the request
 * validation reads).
 */
const SEED = runSeed('request checks');
const RUNS = 3_000;

type Part = 'query' | 'path' | 'headers' | 'body';
type Parts = Partial<Record<Part, RequestPartSchema>> & { readonly operationId: string };
/** Each operation's generated checks, found beside its handler: a declared operation without them fails below. */
const GENERATED = import.meta.glob<{ REQUEST_CHECKS: Parts }>('../../functions/*/request-checks.generated.ts', {
  eager: true,
});
const checksOf = (operation: OperationId): Parts => {
  const module = GENERATED[`../../functions/${operation}/request-checks.generated.ts`];
  if (module === undefined)
    throw new Error(`functions/${operation}/request-checks.generated.ts is missing: run npm run generate`);
  return module.REQUEST_CHECKS;
};
const PART_NAMES: readonly Part[] = ['query', 'path', 'headers', 'body'];
const partsOf = (parts: object) => PART_NAMES.filter((part) => part in parts);
/** The generated name of a part's check (checkPetIdPath): a part several operations share has one check, and one set of values here. */
const checkNameOf = (checks: RequestPartSchema) => CHECK_NAMES.get(checks) as string;
const CHECK_NAMES = new Map<unknown, string>(
  Object.values(
    import.meta.glob<Record<string, unknown>>(
      ['../../functions/*/request-checks.generated.ts', '../../shared/validation/request-checks.generated.ts'],
      { eager: true },
    ),
  ).flatMap((module) =>
    Object.entries(module)
      .filter(([name]) => name.startsWith('check'))
      .map(([name, value]) => [value, name] as [unknown, string]),
  ),
);
const PAIRS = OPERATION_IDS.flatMap((operation) =>
  partsOf(OPERATIONS[operation].request).map((part) => {
    const checks = checksOf(operation)[part] as RequestPartSchema;
    return {
      operation,
      part,
      checks,
      name: checkNameOf(checks),
      schema: (OPERATIONS[operation].request as Partial<Record<Part, RequestPartSchema>>)[part] as RequestPartSchema,
    };
  }),
);
const pair = (operation: string, part: Part) =>
  PAIRS.find((each) => each.operation === operation && each.part === part) as (typeof PAIRS)[number];

/** The codes the request validation reads; others it does not, and the checks leave them out. */
const READ_CODES = new Set(['invalid_type', 'unrecognized_keys']);

/** What the request validation reads of an answer. */
function answerOf(schema: RequestPartSchema, value: unknown) {
  const result = schema['~standard'].validate(value) as { value?: unknown; issues?: readonly RequestIssue[] };
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map(({ code, path, message, keys }) => ({
      path,
      message,
      ...(code !== undefined && READ_CODES.has(code) ? { code } : {}),
      ...(keys === undefined ? {} : { keys }),
    })),
  };
}

function expectSameAnswer(operation: string, part: Part, value: unknown): void {
  const { checks, schema } = pair(operation, part);
  expect(answerOf(checks, value), `${operation} ${part}: ${JSON.stringify(value)}`).toStrictEqual(
    answerOf(schema, value),
  );
}

/** Values of a type nobody should send, and of the shapes zod treats apart (an array has a length). */
const ODD_VALUES = [
  undefined,
  null,
  true,
  0,
  -0,
  1.5,
  -1e20,
  1e20,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  ' ',
  [],
  [1],
  ['a'],
  {},
  { length: 0 },
  { length: null },
  { length: '1' },
];
const odd = fc.constantFrom(...ODD_VALUES);
const unknownName = fc.constantFrom('other', 'Limit', '__proto__', 'constructor', 'toString', '');

/** An object from members in any order, as the validation builds query, path and headers (Object.fromEntries: `__proto__` is a member). */
function objectOf(members: fc.Arbitrary<[string, unknown] | null>[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(...members)
    .map((given) => given.filter((member) => member !== null))
    .chain((given) => fc.shuffledSubarray(given, { minLength: given.length, maxLength: given.length }))
    .map((given) => Object.fromEntries(given));
}
const member = (name: string, value: fc.Arbitrary<unknown>, freq = 3) =>
  fc.option(
    value.map((each): [string, unknown] => [name, each]),
    { freq },
  );
const rarelyOdd = (value: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: odd });
const extra = fc
  .option(fc.tuple(unknownName, rarelyOdd(fc.string())), { freq: 1, nil: null })
  .map((given) => given as [string, unknown] | null);
const extraOften = fc
  .option(fc.tuple(unknownName, rarelyOdd(fc.string())), { freq: 8, nil: null })
  .map((given) => given as [string, unknown] | null);

const idempotencyKeyText = fc.oneof(
  fc.string({ unit: 'binary-ascii', minLength: 0, maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', ' ', '~'), maxLength: 8 }).map((inner) => `"${inner}"`),
  fc
    .constantFrom(IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH + 1, IDEMPOTENCY_KEY_MAX_LENGTH + 2)
    .map((length) => 'k'.repeat(length)),
  fc
    .constantFrom(IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH + 1)
    .map((length) => `"${'k'.repeat(length)}"`),
);

/** Values for each part's check, by its generated name: a new part (a new schema) needs its entry here. */
const ARBITRARIES: Record<string, fc.Arbitrary<unknown>> = {
  checkListPetsQuery: fc.oneof(
    {
      weight: 20,
      arbitrary: objectOf([
        member('limit', rarelyOdd(limitText)),
        member('status', rarelyOdd(statusText)),
        member('cursor', rarelyOdd(fc.oneof(fc.constant(''), fc.string()))),
        extra,
      ]),
    },
    { weight: 1, arbitrary: odd },
  ),
  checkNoQuery: fc.oneof({ weight: 20, arbitrary: objectOf([extraOften, extra]) }, { weight: 1, arbitrary: odd }),
  checkPetIdPath: fc.oneof(
    { weight: 20, arbitrary: objectOf([member('petId', rarelyOdd(petIdText), 10), extra]) },
    { weight: 1, arbitrary: odd },
  ),
  checkCreatePetRequestHeaders: fc.oneof(
    { weight: 20, arbitrary: objectOf([member('Idempotency-Key', rarelyOdd(idempotencyKeyText)), extra]) },
    { weight: 1, arbitrary: odd },
  ),
  checkNewPet: fc.oneof(
    { weight: 10, arbitrary: newPetJson.map((json) => JSON.parse(json.replace(/^\ufeff/, '')) as unknown) },
    {
      weight: 3,
      arbitrary: objectOf([
        member('name', rarelyOdd(fc.string()), 10),
        member('categoryId', odd, 10),
        member('status', odd, 2),
        extra,
      ]),
    },
    { weight: 1, arbitrary: odd },
  ),
};

describe("the request checks of the functions give zod's answers", () => {
  it("each operation's checks check the parts of the request its schemas declare, and read the headers they declare", () => {
    for (const operation of OPERATION_IDS) {
      const checks = checksOf(operation);
      expect([operation, checks.operationId, partsOf(checks)]).toEqual([
        operation,
        operation,
        partsOf(OPERATIONS[operation].request),
      ]);
      const headers = (OPERATIONS[operation].request as { headers?: { _zod: { def: { shape: object } } } }).headers;
      if (headers !== undefined)
        expect([operation, (checks.headers as unknown as { names: string[] }).names]).toEqual([
          operation,
          Object.keys(headers._zod.def.shape),
        ]);
    }
    // Every check has its generated values.
    expect(
      [...new Set(PAIRS.map(({ name }) => name))].sort(),
      "a part's check without values in ARBITRARIES (named after the check)",
    ).toEqual(Object.keys(ARBITRARIES).sort());
  });

  it('a part two operations declare with the same schema is checked by one function, in the shared module', () => {
    const sharedModule = import.meta.glob<Record<string, unknown>>(
      '../../shared/validation/request-checks.generated.ts',
      { eager: true },
    );
    const shared = new Set(Object.values(Object.values(sharedModule)[0] ?? {}));
    for (const a of PAIRS) {
      for (const b of PAIRS) {
        if (a.operation === b.operation || a.schema !== b.schema) continue;
        expect([a.operation, b.operation, a.part, a.checks === b.checks, shared.has(a.checks)]).toEqual([
          a.operation,
          b.operation,
          a.part,
          true,
          true,
        ]);
      }
    }
    // createPet and getPet take no query: one schema (NoQuery), one check.
    expect(pair('createPet', 'query').checks).toBe(pair('getPet', 'query').checks);
  });

  it.each(PAIRS.map(({ operation, part }) => [`${operation} ${part}`, operation, part] as const))(
    '%s, on every generated value',
    (label, operation, part) => {
      const arbitrary = ARBITRARIES[pair(operation, part).name] as fc.Arbitrary<unknown>;
      let valid = 0;
      fc.assert(
        fc.property(arbitrary, (value) => {
          if (answerOf(pair(operation, part).schema, value).issues === undefined) valid += 1;
          expectSameAnswer(operation, part, value);
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // Both answers are common, or the property proves little.
      expect([label, valid > RUNS / 20]).toEqual([label, true]);
      expect([label, valid < RUNS * 0.95]).toEqual([label, true]);
    },
  );

  it.each(PAIRS.map(({ operation, part }) => [`${operation} ${part}`, operation, part] as const))(
    '%s, on values of every odd type, alone and in each member',
    (_label, operation, part) => {
      for (const value of ODD_VALUES) {
        expectSameAnswer(operation, part, value);
        for (const name of ['limit', 'status', 'cursor', 'petId', 'Idempotency-Key', 'name', 'categoryId', 'other']) {
          expectSameAnswer(operation, part, { [name]: value });
          expectSameAnswer(operation, part, { name: 'Rex', categoryId: 1, [name]: value });
        }
      }
    },
  );

  it('the odd answers are among them: a name given as an empty array gets two issues, an unsafe negative id two of one message', () => {
    const idMessage = 'must be an integer from 1 to 9007199254740991';
    const newPet = pair('createPet', 'body').checks;
    expect(answerOf(newPet, { name: [], categoryId: -1e20 })).toStrictEqual({
      issues: [
        { path: ['name'], message: 'must be a string', code: 'invalid_type' },
        { path: ['name'], message: 'must not be empty or only white space' },
        { path: ['categoryId'], message: idMessage },
        { path: ['categoryId'], message: idMessage },
      ],
    });
    expect(answerOf(newPet, { name: 'Rex', categoryId: 1e20 })).toStrictEqual({
      issues: [{ path: ['categoryId'], message: idMessage }],
    });
  });
});
