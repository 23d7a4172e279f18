import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { ExportIndex } from '../../codegen/exported-values';
import { CheckWriter, type PartToCheck } from '../../codegen/request-checks';
import type { RequestIssue, RequestPartSchema } from '../../shared/validation/request-schema';
import { runSeed } from '../support/run-seed';
import * as sampleRules from './sample-rules';

/**
 * The generator of request checks (codegen/request-checks.ts), beyond the interface's own schemas
 * (test/codegen/operation-request-checks.test.ts holds those): every kind it writes, on a sample schema whose
 * generated checks are loaded and held to zod's answers, and every kind it refuses, with a message
 * that names it and where it is.
 */
const root = join(import.meta.dirname, '..', '..');
const SEED = runSeed('generated sample checks');

const Sample = z.strictObject({
  code: z
    .string()
    .check(
      z.trim(),
      z.toLowerCase(),
      z.minLength(2, 'short'),
      z.maxLength(6, 'long'),
      z.regex(sampleRules.CODE_TEXT, 'letters'),
      z.refine(sampleRules.isNotReserved, 'reserved'),
      z.refine(sampleRules.SAMPLE_RULES[0]!.holds, 'no x'),
    ),
  shout: z.optional(z.string({ error: 'text' }).check(z.toUpperCase(), z.regex(/^[A-Z]*$/, 'capitals'))),
  count: z._default(z.int().check(z.minimum(0), z.maximum(10, 'too many')), 3),
  ratio: z.optional(z.int({ error: 'whole' }).check(z.gt(0, 'positive'), z.lt(100, 'under 100'))),
  size: z.optional(z.pipe(z.string(), z.transform(sampleRules.lengthOf))),
  digits: z.optional(z.pipe(z.pipe(z.string().check(z.regex(/^[0-9]{1,20}$/)), z.transform(Number)), z.int())),
  tag: z._default(z.enum(['a', 'b']), 'a'),
  // Canonical digits read as a number: the checks no such number can fail are left out, the others kept.
  page: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,2}$/, 'digits')), z.transform(Number)),
      z
        .int()
        .check(
          z.minimum(1),
          z.gt(0),
          z.maximum(500, 'at most 500'),
          z.lt(1000, 'under 1000'),
          z.minimum(2, 'at least 2'),
          z.gt(1, 'over 1'),
          z.lt(999, 'under 999'),
        ),
    ),
  ),
  // Digits straight into an integer, no transform: still text, so zod refuses it as no integer.
  text: z.optional(
    z.pipe(
      z.string().check(z.regex(/^[1-9][0-9]{0,2}$/, 'digits')),
      z.int({ error: 'not a number' }).check(z.maximum(5, 'five')) as never,
    ),
  ),
  // Patterns that admit more than canonical digits, and a transform other than Number after them: nothing spared.
  zero: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,2}$|^0$/, 'digits or 0')), z.transform(Number)),
      z.int().check(z.minimum(1, 'positive')),
    ),
  ),
  word: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/x|^[1-9][0-9]{0,2}$/, 'digits or x')), z.transform(Number)),
      z.int({ error: 'a number' }),
    ),
  ),
  flagged: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,2}$/i, 'digits')), z.transform(Number)),
      z.int().check(z.maximum(2_000, 'at most 2,000')),
    ),
  ),
  half: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,2}$/, 'digits')), z.transform(sampleRules.halve)),
      z.int({ error: 'whole' }).check(z.minimum(1, 'one'), z.maximum(999, 'most')),
    ),
  ),
  plain: z.optional(z.string().check(z.refine(sampleRules.isNotReserved))),
  big: z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,16}$/, 'digits')), z.transform(Number)),
      z.int({ error: 'safe' }).check(z.maximum(1e17, 'huge')),
    ),
  ),
});
const SampleHeaders = z.object({ 'X-Tag': z.optional(z.enum(['a', 'b'], { error: 'a or b' })) });

function indexOf(): ExportIndex {
  const index = new ExportIndex();
  index.add([{ module: 'test/codegen/sample-rules', exports: sampleRules }]);
  return index;
}

const part = (schema: unknown, headers = false, checkName = 'checkSample'): PartToCheck => ({
  checkName,
  schema,
  headers,
  schemaExport: { module: 'test/codegen/request-checks.test', name: 'Sample', access: '' },
});

/** The generated module, written under test-output/ and loaded. */
async function loadGenerated(name: string, parts: readonly PartToCheck[]): Promise<Record<string, RequestPartSchema>> {
  const writer = new CheckWriter(indexOf(), '../..');
  const bodies = parts.map((each) => writer.part(each));
  const folder = join(root, 'test-output', 'codegen');
  mkdirSync(folder, { recursive: true });
  // A file of its own each time: a module already imported under a name would be served again, whatever the generator now writes.
  const file = join(folder, `${name}-${randomUUID()}.ts`);
  writeFileSync(file, [...writer.importLines(), ...writer.constantLines(), ...bodies].join('\n'));
  return (await import(pathToFileURL(file).href)) as Record<string, RequestPartSchema>;
}

function answerOf(schema: RequestPartSchema, value: unknown) {
  const result = schema['~standard'].validate(value) as { value?: unknown; issues?: readonly RequestIssue[] };
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map(({ code, path, message, keys }) => ({
      path,
      message,
      ...(code === 'invalid_type' || code === 'unrecognized_keys' ? { code } : {}),
      ...(keys === undefined ? {} : { keys }),
    })),
  };
}

const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  true,
  0,
  -1,
  1.5,
  1e20,
  -1e20,
  Number.NaN,
  '',
  ' ',
  [],
  ['a'],
  {},
  { length: 0 },
  { length: 9 },
);
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', 'A', ' ', '1', 'r', 'o', 't'), maxLength: 9 }),
  fc.constantFrom('root', ' Root ', 'ab', 'abcdef', 'abcdefg'),
);
const integer = fc.oneof(fc.integer({ min: -3, max: 110 }), fc.constantFrom(0, 10, 11, 100, 99, 2 ** 53, -(2 ** 53)));
const member = (name: string, value: fc.Arbitrary<unknown>) =>
  fc.option(
    fc
      .oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: odd })
      .map((each): [string, unknown] => [name, each]),
    { freq: 1 },
  );
const sample = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .tuple(
        fc.oneof(
          {
            weight: 3,
            arbitrary: fc.constantFrom<[string, unknown] | null>(['code', 'abc'], ['code', ' Bob '], ['code', 'tab']),
          },
          { weight: 2, arbitrary: member('code', text) },
        ),
        member('shout', text),
        member('count', integer),
        member('ratio', integer),
        member('size', text),
        member('digits', fc.oneof(fc.stringMatching(/^[0-9]{1,18}$/), text)),
        member('tag', fc.constantFrom('a', 'b', 'c')),
        member('text', fc.constantFrom('1', '7', 'x')),
        member('zero', fc.constantFrom('0', '1', '12')),
        member('word', fc.constantFrom('x', '5')),
        member('flagged', fc.constantFrom('5', '999')),
        member('half', fc.constantFrom('2', '3', '1')),
        member('plain', fc.constantFrom('root', 'leaf')),
        member(
          'page',
          fc.oneof(
            fc.integer({ min: 0, max: 1200 }).map(String),
            fc.constantFrom('01', '1', '2', '999', '998', '500', '501'),
          ),
        ),
        member(
          'big',
          fc.oneof(
            fc.bigInt({ min: 1n, max: 10n ** 17n - 1n }).map(String),
            fc.constantFrom('9007199254740991', '9007199254740992', '99999999999999999'),
          ),
        ),
        fc.option(fc.constantFrom<[string, unknown]>(['other', 1], ['X-Tag', 'a'], ['X-Tag', 'c'], ['__proto__', 1]), {
          freq: 3,
        }),
      )
      .map((members) => Object.fromEntries(members.filter((each) => each !== null) as [string, unknown][])),
  },
  { weight: 1, arbitrary: odd },
);

describe('the generated request checks', () => {
  it("give zod's answers for every kind the generator writes: patterns, lengths, trims and case, refinements, integer bounds inclusive and not, defaults, optionals, pipes and transforms", async () => {
    const generated = await loadGenerated('sample', [part(Sample), part(SampleHeaders, true, 'checkSampleHeaders')]);
    let valid = 0;
    fc.assert(
      fc.property(sample, (value) => {
        const expected = answerOf(Sample as unknown as RequestPartSchema, value);
        if (expected.issues === undefined) valid += 1;
        expect(answerOf(generated.checkSample as RequestPartSchema, value), JSON.stringify(value)).toStrictEqual(
          expected,
        );
        expect(answerOf(generated.checkSampleHeaders as RequestPartSchema, value), JSON.stringify(value)).toStrictEqual(
          answerOf(SampleHeaders as unknown as RequestPartSchema, value),
        );
      }),
      { seed: SEED, numRuns: 3_000 },
    );
    expect(valid).toBeGreaterThan(30);
    expect((generated.checkSampleHeaders as unknown as { names: string[] }).names).toEqual(['X-Tag']);
  });

  it('name a function or pattern by its export, and write a pattern no module exports as it is', () => {
    const writer = new CheckWriter(indexOf(), '../..');
    const code = writer.part(part(Sample));
    expect(code).toContain('SAMPLE_RULES[0]!.holds(');
    expect(code).toContain('isNotReserved(');
    expect(code).toContain('CODE_TEXT.test(');
    expect(code).toContain('/^[A-Z]*$/.test(');
    expect(code).toContain('lengthOf(');
    expect(code).toContain('= Number(');
    expect(writer.importLines()).toContain(
      "import { CODE_TEXT, SAMPLE_RULES, halve, isNotReserved, lengthOf } from '../../test/codegen/sample-rules';",
    );
    expect(writer.constantLines()).toEqual([
      'const SAMPLE_MEMBERS: ReadonlySet<string> = /* @__PURE__ */ new Set(["code","shout","count","ratio","size","digits","tag","page","text","zero","word","flagged","half","plain","big"]);',
    ]);
    // Digits read as a number are an integer of their range: only the checks such a number can fail are written.
    const page = code.slice(code.indexOf('input["page"]'), code.indexOf('input["text"]'));
    expect(code.slice(code.indexOf('input["text"]'), code.indexOf('input["big"]'))).toContain('isInteger');
    expect(page).not.toContain('isInteger');
    expect(page).not.toContain('isSafeInteger');
    expect(page.match(/issues\.push/g)).toHaveLength(2 + 4);
    expect(page).toContain('> 500)');
    expect(page).toContain('< 2)');
    expect(page).toContain('<= 1)');
    expect(page).toContain('>= 999)');
    const big = code.slice(code.indexOf('input["big"]'));
    expect(big).toContain('isSafeInteger');
    expect(big).not.toContain('isInteger(');
    // An empty strict object: no member set to write.
    const empty = new CheckWriter(indexOf(), '../..');
    empty.part(part(z.strictObject({})));
    expect(empty.constantLines()).toEqual(['const SAMPLE_MEMBERS: ReadonlySet<string> = /* @__PURE__ */ new Set();']);
  });

  it.each([
    ['a part that is not an object', z.string(), false, 'checkSample: a request part must be a zod object, not string'],
    [
      'a loose query',
      z.object({}),
      false,
      'checkSample: a query, path or body must be a strictObject (an unknown member is a 400)',
    ],
    [
      'strict headers',
      z.strictObject({}),
      true,
      'checkSample: headers are checked as a plain z.object (other headers are left out), not a strictObject',
    ],
    [
      'a catchall',
      z.catchall(z.object({}), z.string()),
      false,
      'checkSample: an object with a catchall other than never (strictObject) is not supported',
    ],
    [
      'an array',
      z.strictObject({ a: z.array(z.string()) }),
      false,
      "checkSample.a: zod's array is not among the kinds the generator writes checks for (codegen/request-checks.ts)",
    ],
    [
      'a float',
      z.strictObject({ a: z.number() }),
      false,
      'checkSample.a: only integers (z.int(): the safe range) are supported, not a number of format none',
    ],
    [
      'a multiple',
      z.strictObject({ a: z.int().check(z.multipleOf(2)) }),
      false,
      'checkSample.a: the number check multiple_of is not supported',
    ],
    [
      'an e-mail',
      z.strictObject({ a: z.email() }),
      false,
      'checkSample.a: the string format email is not supported (only a pattern)',
    ],
    [
      'a global pattern',
      z.strictObject({ a: z.string().check(z.regex(/a/g)) }),
      false,
      'checkSample.a: a pattern with the g or y flag keeps state between tests',
    ],
    [
      'a sticky pattern',
      z.strictObject({ a: z.string().check(z.regex(/a/y)) }),
      false,
      'checkSample.a: a pattern with the g or y flag keeps state between tests',
    ],
    [
      'an aborting check',
      z.strictObject({ a: z.string().check(z.minLength(1, { abort: true })) }),
      false,
      "checkSample.a: zod's min_length with `abort` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'another string check',
      z.strictObject({ a: z.string().check(z.startsWith('a')) }),
      false,
      "checkSample.a: zod's string_format with `prefix` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'an unknown overwrite',
      z.strictObject({ a: z.string().check(z.overwrite((value) => `${value}!`)) }),
      false,
      'checkSample.a: an overwrite other than trim, toLowerCase or toUpperCase is not supported',
    ],
    [
      'an unexported refinement',
      z.strictObject({ a: z.string().check(z.refine((value) => value !== '')) }),
      false,
      'checkSample.a: the refinement (anonymous) is exported by no zod-free module of the domain; export it (or the list that holds it) so the checks can run the same function',
    ],
    [
      'an unexported transform',
      z.strictObject({
        a: z.pipe(
          z.string(),
          z.transform(function twice(value: string) {
            return value + value;
          }),
        ),
      }),
      false,
      'checkSample.a: the transform twice is exported by no zod-free module of the domain; export it (or the list that holds it) so the checks can run the same function',
    ],
    [
      'an object default',
      z.strictObject({ a: z._default(z.enum(['a']), {} as never) }),
      false,
      'checkSample.a: a default that is not a plain value is not supported',
    ],
    [
      'a nullable',
      z.strictObject({ a: z.nullable(z.string()) }),
      false,
      "checkSample.a: zod's nullable is not among the kinds the generator writes checks for (codegen/request-checks.ts)",
    ],
    [
      'an optional default',
      z.strictObject({ a: z.optional(z._default(z.string(), 'x')) }),
      false,
      'checkSample.a: a member that is defaulted in and optional out is not supported',
    ],
    [
      "an object's own check",
      z.strictObject({ a: z.string() }).check(z.refine(() => true)),
      false,
      "checkSample: zod's object with `checks` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'a check on an enum',
      z.strictObject({ a: z.enum(['a']).check(z.refine(() => true)) }),
      false,
      "checkSample.a: zod's enum with `checks` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'a check on an optional',
      z.strictObject({ a: z.optional(z.string()).check(z.refine(() => true)) }),
      false,
      "checkSample.a: zod's optional with `checks` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      "a refinement's path",
      z.strictObject({ a: z.string().check(z.refine(sampleRules.isNotReserved, { message: 'r', path: ['b'] })) }),
      false,
      "checkSample.a: zod's custom with `path` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'a when of its own',
      z.strictObject({ a: z.string().check(z.minLength(1, { message: 'x', when: () => true } as never)) }),
      false,
      'checkSample.a: a check with a `when` of its own is not supported',
    ],
    [
      "a refinement's when",
      z.strictObject({ a: z.string().check(z.refine(sampleRules.isNotReserved, { message: 'r', when: () => true })) }),
      false,
      "checkSample.a: zod's custom with `when` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'an error of the issue',
      z.strictObject({ a: z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'text') }) }),
      false,
      'checkSample.a: an error given as a function of the issue is not supported (give its message as text)',
    ],
    [
      'coercion',
      z.strictObject({ a: z.coerce.string() }),
      false,
      "checkSample.a: zod's string with `coerce` is not among what the generator writes (codegen/request-checks.ts)",
    ],
    [
      'a numeric enum',
      z.strictObject({ a: z.enum({ One: 1 } as never) }),
      false,
      'checkSample.a: an enum of other values than text (a numeric TypeScript enum) is not supported',
    ],
    [
      'a transform first',
      z.strictObject({ a: z.pipe(z.transform(sampleRules.orEmpty), z.string()) }),
      false,
      'checkSample.a: a member that is optional in and required out is not supported',
    ],
    ['not a schema', z.strictObject({ a: 'text' as never }), false, 'checkSample.a: not a zod schema'],
  ])('refuse %s, naming it', (_what, schema, headers, message) => {
    expect(() => new CheckWriter(indexOf(), '../..').part(part(schema, headers))).toThrow(message);
  });
});
