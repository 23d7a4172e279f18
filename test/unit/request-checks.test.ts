import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestIssue, RequestPartSchema } from '../../shared/validation/request-schema';
import { CREATE_PET_CHECKS } from '../../shared/pets/create-pet-checks';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../shared/pets/idempotency';
import { GET_PET_CHECKS } from '../../shared/pets/get-pet-checks';
import { LIST_PETS_CHECKS } from '../../shared/pets/list-pets-checks';
import { OPERATION_SCHEMAS } from '../../shared/pets/operation-schemas';
import { OPERATION_IDS, type OperationId } from '../../shared/functions';
import { limitText, newPetJson, petIdText, statusText } from '../support/boundary-values';
import { runSeed } from '../support/run-seed';

/**
 * The functions check their requests with code written by hand (shared/pets/*-checks.ts), so that
 * no zod schema is built at a cold start; the zod schemas (OPERATION_SCHEMAS) stay the source of
 * the interface description and the types, and are the oracle here: every generated value, and
 * every odd one below, gets the same answer from both, the value it becomes or the same issues in
 * the same order (code, path, message and unknown members: all the request validation reads).
 */
const SEED = runSeed('request checks');
const RUNS = 3_000;

type Part = 'query' | 'path' | 'headers' | 'body';
type Parts = Partial<Record<Part, RequestPartSchema>>;
/** Each operation's checks, as its function takes them: an operation without them does not compile. */
const CHECKS: Record<OperationId, Parts> = { listPets: LIST_PETS_CHECKS, createPet: CREATE_PET_CHECKS, getPet: GET_PET_CHECKS };
const partsOf = (parts: Parts) => (Object.keys(parts) as Part[]).sort();
const PAIRS = OPERATION_IDS.flatMap((operation) =>
  partsOf(OPERATION_SCHEMAS[operation].request).map((part) => ({
    operation,
    part,
    checks: CHECKS[operation][part] as RequestPartSchema,
    schema: (OPERATION_SCHEMAS[operation].request as Parts)[part] as RequestPartSchema,
  })),
);
const pair = (operation: string, part: Part) => PAIRS.find((each) => each.operation === operation && each.part === part) as (typeof PAIRS)[number];

/** The codes the request validation reads; others it does not, and the checks leave them out. */
const READ_CODES = new Set(['invalid_type', 'unrecognized_keys']);

/** What the request validation reads of an answer. */
function answerOf(schema: RequestPartSchema, value: unknown) {
  const result = schema['~standard'].validate(value) as { value?: unknown; issues?: readonly RequestIssue[] };
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map(({ code, path, message, keys }) => ({ path, message, ...(code !== undefined && READ_CODES.has(code) ? { code } : {}), ...(keys === undefined ? {} : { keys }) })),
  };
}

function expectSameAnswer(operation: string, part: Part, value: unknown): void {
  const { checks, schema } = pair(operation, part);
  expect(answerOf(checks, value), `${operation} ${part}: ${JSON.stringify(value)}`).toStrictEqual(answerOf(schema, value));
}

/** Values of a type nobody should send, and of the shapes zod treats apart (an array has a length). */
const ODD_VALUES = [undefined, null, true, 0, -0, 1.5, -1e20, 1e20, Number.NaN, Number.POSITIVE_INFINITY, '', ' ', [], [1], ['a'], {}, { length: 0 }, { length: null }, { length: '1' }];
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
const member = (name: string, value: fc.Arbitrary<unknown>, freq = 3) => fc.option(value.map((each): [string, unknown] => [name, each]), { freq });
const rarelyOdd = (value: fc.Arbitrary<unknown>) => fc.oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: odd });
const extra = fc.option(fc.tuple(unknownName, rarelyOdd(fc.string())), { freq: 1, nil: null }).map((given) => given as [string, unknown] | null);
const extraOften = fc.option(fc.tuple(unknownName, rarelyOdd(fc.string())), { freq: 8, nil: null }).map((given) => given as [string, unknown] | null);

const idempotencyKeyText = fc.oneof(
  fc.string({ unit: 'binary-ascii', minLength: 0, maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', ' ', '~'), maxLength: 8 }).map((inner) => `"${inner}"`),
  fc.constantFrom(IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH + 1, IDEMPOTENCY_KEY_MAX_LENGTH + 2).map((length) => 'k'.repeat(length)),
  fc.constantFrom(IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH + 1).map((length) => `"${'k'.repeat(length)}"`),
);

const ARBITRARIES: Record<string, fc.Arbitrary<unknown>> = {
  'listPets query': fc.oneof(
    { weight: 20, arbitrary: objectOf([member('limit', rarelyOdd(limitText)), member('status', rarelyOdd(statusText)), member('cursor', rarelyOdd(fc.oneof(fc.constant(''), fc.string()))), extra]) },
    { weight: 1, arbitrary: odd },
  ),
  'createPet query': fc.oneof({ weight: 20, arbitrary: objectOf([extraOften, extra]) }, { weight: 1, arbitrary: odd }),
  'getPet query': fc.oneof({ weight: 20, arbitrary: objectOf([extraOften, extra]) }, { weight: 1, arbitrary: odd }),
  'getPet path': fc.oneof({ weight: 20, arbitrary: objectOf([member('petId', rarelyOdd(petIdText), 10), extra]) }, { weight: 1, arbitrary: odd }),
  'createPet headers': fc.oneof({ weight: 20, arbitrary: objectOf([member('Idempotency-Key', rarelyOdd(idempotencyKeyText)), extra]) }, { weight: 1, arbitrary: odd }),
  'createPet body': fc.oneof(
    { weight: 10, arbitrary: newPetJson.map((json) => JSON.parse(json.replace(/^\ufeff/, '')) as unknown) },
    { weight: 3, arbitrary: objectOf([member('name', rarelyOdd(fc.string()), 10), member('categoryId', odd, 10), member('status', odd, 2), extra]) },
    { weight: 1, arbitrary: odd },
  ),
};

describe('the request checks of the functions give zod\'s answers', () => {
  it('each operation\'s checks check the parts of the request its schemas declare, and read the headers they declare', () => {
    for (const operation of OPERATION_IDS) expect([operation, partsOf(CHECKS[operation])]).toEqual([operation, partsOf(OPERATION_SCHEMAS[operation].request)]);
    expect(CREATE_PET_CHECKS.headers.names).toEqual(Object.keys(OPERATION_SCHEMAS.createPet.request.headers._zod.def.shape));
    // Every part has its generated values.
    expect(PAIRS.map(({ operation, part }) => `${operation} ${part}`).sort()).toEqual(Object.keys(ARBITRARIES).sort());
  });

  it.each(PAIRS.map(({ operation, part }) => [`${operation} ${part}`, operation, part] as const))('%s, on every generated value', (label, operation, part) => {
    const arbitrary = ARBITRARIES[label] as fc.Arbitrary<unknown>;
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
  });

  it.each(PAIRS.map(({ operation, part }) => [`${operation} ${part}`, operation, part] as const))('%s, on values of every odd type, alone and in each member', (_label, operation, part) => {
    for (const value of ODD_VALUES) {
      expectSameAnswer(operation, part, value);
      for (const name of ['limit', 'status', 'cursor', 'petId', 'Idempotency-Key', 'name', 'categoryId', 'other']) {
        expectSameAnswer(operation, part, { [name]: value });
        expectSameAnswer(operation, part, { name: 'Rex', categoryId: 1, [name]: value });
      }
    }
  });

  it('the odd answers are among them: a name given as an empty array gets two issues, an unsafe negative id two of one message', () => {
    const idMessage = 'must be an integer from 1 to 9007199254740991';
    expect(answerOf(CREATE_PET_CHECKS.body, { name: [], categoryId: -1e20 })).toStrictEqual({
      issues: [
        { path: ['name'], message: 'must be a string', code: 'invalid_type' },
        { path: ['name'], message: 'must not be empty or only white space' },
        { path: ['categoryId'], message: idMessage },
        { path: ['categoryId'], message: idMessage },
      ],
    });
    expect(answerOf(CREATE_PET_CHECKS.body, { name: 'Rex', categoryId: 1e20 })).toStrictEqual({ issues: [{ path: ['categoryId'], message: idMessage }] });
  });
});
