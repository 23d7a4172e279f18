import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { MAX_BODY_BYTES } from '../../shared/http/body-limit';
import { PET_STATUSES } from '../../shared/pets/fields';
import type { PetStatus } from '../../shared/pets/pet-status';
import { startTestApi, type ApiResponse, type TestApi } from '../support/api';
import { limitText, newPetJson, petIdText, statusText } from '../support/boundary-values';
import { testDatabase } from '../support/database';
import { interfaceJudge, type InterfaceJudge } from '../support/interface-judge';
import { runSeed } from '../support/run-seed';

/**
 * The interface description is exact in both directions: a request passes the served document's
 * schemas, read by a standard validator (test/support/interface-judge.ts), if and only if the
 * service does not answer it 400, and both name the same fields. The only disagreements allowed
 * are the rules no schema can state, each named below and written in the description of its field.
 */
const SEED = runSeed('interface agreement');
/** Per property: enough for a few thousand requests in all, bounded so that `npm test` stays fast on a slow machine. */
const TIME_LIMIT_MS = 25_000;
/** Its own key, so that thousands of requests meet no rate limit. */
const KEY = 'interface-agreement-key';
let api: TestApi;
let judge: InterfaceJudge;
/** The document as served, fetched once: the judge reads it, the exception tests read its descriptions. */
let served: Record<string, any>;
/** Cursors the service gave, with the filter of the listing they came from. */
const issued: { cursor: string; status: PetStatus | undefined }[] = [];

beforeAll(async () => {
  const database = testDatabase();
  await new KeyRegistry(database.documentClient, database.tableName).register(KEY, 'enterprise', {
    perMinute: 1_000_000,
    perDay: 100_000_000,
  });
  api = await startTestApi();
  const answer = await api.request('GET', '/openapi.json', { key: null });
  expect(answer.status).toBe(200);
  served = answer.body;
  judge = interfaceJudge(served);
  for (const status of [...PET_STATUSES, ...PET_STATUSES])
    await createPet(JSON.stringify({ name: 'Page', categoryId: 1, status }));
  for (const status of [undefined, ...PET_STATUSES]) {
    const page = await api.request('GET', `/pets?limit=1${status === undefined ? '' : `&status=${status}`}`, {
      key: KEY,
    });
    issued.push({
      cursor: new URL(/<([^>]+)>/.exec(page.headers.get('link') ?? '')?.[1] as string).searchParams.get(
        'cursor',
      ) as string,
      status,
    });
  }
});
afterAll(() => api.close());

const createPet = (text: string): Promise<ApiResponse> =>
  api.request('POST', '/pets', { key: KEY, body: text, headers: { 'content-type': 'application/json' } });
const listPets = (query: URLSearchParams): Promise<ApiResponse> => api.request('GET', `/pets?${query}`, { key: KEY });
const getPet = (segment: string): Promise<ApiResponse> =>
  api.request('GET', `/pets/${encodeURIComponent(segment)}`, { key: KEY });

/** The fields of the service's 400, or undefined when it did not refuse. Any answer but a decision (a 5xx, a 429) fails. */
function refusedFields(answer: ApiResponse): string[] | undefined {
  expect([200, 201, 400, 404], `${answer.status}: ${answer.text}`).toContain(answer.status);
  return answer.status === 400
    ? [...new Set((answer.body.details as { path: string }[]).map((detail) => detail.path))]
    : undefined;
}

describe('the findings of issue 17', () => {
  it('1: a name of 100 characters with white space around it is allowed by the document, as the service creates it', async () => {
    const text = JSON.stringify({ name: ` ${'n'.repeat(100)}\t`, categoryId: 1 });
    const answer = await createPet(text);
    expect(answer.status).toBe(201);
    expect(answer.body.name).toBe('n'.repeat(100));
    expect(judge.newPet(text)).toEqual([]);
  });

  it('2: a name of white space only is refused by the document, as the service refuses it', async () => {
    const text = JSON.stringify({ name: ' \t\u00a0\u3000 ', categoryId: 1 });
    const answer = await createPet(text);
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([{ path: 'body.name', message: 'must not be empty or only white space' }]);
    expect(judge.newPet(text)).toEqual(['body.name']);
  });
});

/** What the two decided, across a property's runs: agreements, and the named exceptions that occurred. */
type Tally = Map<string, number>;
const count = (tally: Tally, outcome: string) => tally.set(outcome, (tally.get(outcome) ?? 0) + 1);

/**
 * The document and the service agree on a request: both allow it, or both refuse it on the same
 * fields. Or they differ by named exceptions: the service refuses, beyond what the document
 * refuses, only fields `exceptions` names (the rules no schema can state that apply to this request).
 */
function expectAgreement(
  tally: Tally,
  documentRefuses: string[],
  answer: ApiResponse,
  exceptions: Record<string, string>,
): void {
  const serviceRefuses = refusedFields(answer) ?? [];
  const missed = documentRefuses.filter((field) => !serviceRefuses.includes(field));
  expect(
    missed,
    `the document refuses ${missed.join(', ')}, the service answered ${answer.status} ${answer.text}`,
  ).toEqual([]);
  const beyond = serviceRefuses.filter((field) => !documentRefuses.includes(field));
  expect(
    beyond.filter((field) => exceptions[field] === undefined),
    `the service refused ${answer.text}, the document refuses ${JSON.stringify(documentRefuses)}`,
  ).toEqual([]);
  for (const field of beyond) count(tally, exceptions[field] as string);
  if (beyond.length === 0) count(tally, documentRefuses.length === 0 ? 'both allow' : 'both refuse');
}

/** A value in plain decimal digits without a leading zero, as the descriptions of integer parameters ask. */
const PLAIN_DECIMAL = /^[1-9][0-9]*$/;
const SPELLING = 'an integer not written in plain decimal digits';
const CURSOR = 'a cursor the service did not give for this filter';

const runs = (numRuns: number) => ({
  seed: SEED,
  numRuns,
  interruptAfterTimeLimit: TIME_LIMIT_MS,
  markInterruptAsFailure: false,
});

/** Both decisions are common, or the property proves little; and every exception the generator can produce did occur. */
function expectVariety(tally: Tally, exceptions: string[]): void {
  process.stdout.write(`${JSON.stringify(Object.fromEntries(tally))}\n`);
  const total = [...tally.values()].reduce((sum, n) => sum + n, 0);
  expect(tally.get('both allow') ?? 0).toBeGreaterThan(total / 20);
  expect(tally.get('both refuse') ?? 0).toBeGreaterThan(total / 20);
  for (const exception of exceptions) expect(tally.get(exception) ?? 0, exception).toBeGreaterThan(0);
}

/** A cursor the service gave, altered: one character of its payload or of its tag changed, or spelled otherwise (same bytes). */
function altered(cursor: string, how: 'payload' | 'tag' | 'padding'): string {
  const swap = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
  const [payload, tag] = cursor.split('.') as [string, string];
  return how === 'payload'
    ? `${swap(payload, 3)}.${tag}`
    : how === 'tag'
      ? `${payload}.${swap(tag, 5)}`
      : `${cursor}==`;
}

describe('a request passes the served document exactly when the service does not answer 400 (property)', () => {
  it('the body of POST /v1/pets', async () => {
    const tally: Tally = new Map();
    await fc.assert(
      fc.asyncProperty(newPetJson, async (text) => {
        expectAgreement(tally, judge.newPet(text), await createPet(text), {});
      }),
      runs(1500),
    );
    expectVariety(tally, []);
  }, 120_000);

  it('the query of GET /v1/pets', async () => {
    const name = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('limit', 'status', 'cursor') },
      { weight: 1, arbitrary: fc.constantFrom('Limit', 'limit[]', 'offset', '', '__proto__', 'cursor ') },
    );
    const cursor = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...issued.map((entry) => entry.cursor)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(...issued.map((entry) => entry.cursor)),
            fc.constantFrom('payload', 'tag', 'padding') as fc.Arbitrary<'payload' | 'tag' | 'padding'>,
          )
          .map(([text, how]) => altered(text, how)),
      },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.='.split('')), maxLength: 40 }) },
    );
    const value = (parameter: string) =>
      parameter === 'limit'
        ? limitText
        : parameter === 'status'
          ? statusText
          : parameter === 'cursor'
            ? cursor
            : fc.string({ maxLength: 5 });
    const pairs = fc.array(
      name.chain((parameter) => value(parameter).map((text): [string, string] => [parameter, text])),
      { maxLength: 4 },
    );
    const tally: Tally = new Map();
    await fc.assert(
      fc.asyncProperty(pairs, async (list) => {
        const query = new URLSearchParams(list);
        const [limits, cursors, statuses] = [query.getAll('limit'), query.getAll('cursor'), query.getAll('status')];
        const exceptions: Record<string, string> = {};
        if (limits.length === 1 && !PLAIN_DECIMAL.test(limits[0] as string)) exceptions['query.limit'] = SPELLING;
        const filter = statuses[0] as PetStatus | undefined;
        if (cursors.length === 1 && !issued.some((entry) => entry.cursor === cursors[0] && entry.status === filter))
          exceptions['query.cursor'] = CURSOR;
        expectAgreement(tally, judge.listQuery(query), await listPets(query), exceptions);
      }),
      runs(1200),
    );
    expectVariety(tally, [SPELLING, CURSOR]);
  }, 120_000);

  it('the path of GET /v1/pets/{petId}', async () => {
    const tally: Tally = new Map();
    // "." and ".." are no segment a URL can carry (they are resolved away).
    const segment = petIdText.filter((text) => text !== '' && text !== '.' && text !== '..');
    await fc.assert(
      fc.asyncProperty(segment, async (text) => {
        expectAgreement(
          tally,
          judge.petIdPath(text),
          await getPet(text),
          PLAIN_DECIMAL.test(text) ? {} : { 'path.petId': SPELLING },
        );
      }),
      runs(600),
    );
    expectVariety(tally, [SPELLING]);
  }, 120_000);
});

describe('the rules no schema can state: the document allows these, the service refuses them, and the description of each field says so', () => {
  it(`${SPELLING}: limit in the query and petId in the path`, async () => {
    const [limit] = served.paths['/pets'].get.parameters;
    const [petId] = served.paths['/pets/{petId}'].get.parameters;
    for (const parameter of [limit, petId])
      expect(parameter.description).toContain('plain decimal digits without a leading zero (`7`, not `07`');
    for (const spelled of ['07', '+7', '7.0', '7e0', '0x7', ' 7']) {
      expect(judge.listQuery(new URLSearchParams({ limit: spelled })), spelled).toEqual([]);
      expect(refusedFields(await listPets(new URLSearchParams({ limit: spelled })))).toEqual(['query.limit']);
      expect(judge.petIdPath(spelled), spelled).toEqual([]);
      expect(refusedFields(await getPet(spelled))).toEqual(['path.petId']);
    }
    // Not the number a text denotes when that is infinite: refused by both.
    for (const text of ['Infinity', '1e400']) {
      expect(judge.listQuery(new URLSearchParams({ limit: text }))).toEqual(['query.limit']);
      expect(judge.petIdPath(text)).toEqual(['path.petId']);
    }
  });

  it(`${CURSOR}: bound to its filter, signed, and valid only as given`, async () => {
    const [cursor] = served.paths['/pets'].get.parameters.filter(
      (parameter: { name: string }) => parameter.name === 'cursor',
    );
    expect(cursor.description).toContain(
      'only a cursor the service gave, for a listing with the same `status` filter, is accepted',
    );
    const forAvailable = issued.find((entry) => entry.status === 'available')?.cursor as string;
    const refused = [
      { cursor: forAvailable },
      { cursor: forAvailable, status: 'sold' },
      { cursor: 'made.by-hand' },
      ...(['payload', 'tag', 'padding'] as const).map((how) => ({
        cursor: altered(forAvailable, how),
        status: 'available',
      })),
    ];
    for (const query of refused as Record<string, string>[]) {
      expect(judge.listQuery(new URLSearchParams(query))).toEqual([]);
      expect(refusedFields(await listPets(new URLSearchParams(query))), JSON.stringify(query)).toEqual([
        'query.cursor',
      ]);
    }
    expect(
      refusedFields(await listPets(new URLSearchParams({ cursor: forAvailable, status: 'available' }))),
    ).toBeUndefined();
  });

  it('a member name given twice in the body', async () => {
    expect(served.paths['/pets'].post.requestBody.description).toContain('a member name given twice');
    const text = '{"name":"Rex","categoryId":1,"name":"Max"}';
    expect(judge.newPet(text)).toEqual([]);
    expect(refusedFields(await createPet(text))).toEqual(['body.name']);
  });

  it(`a body of more than ${MAX_BODY_BYTES} bytes, however valid its value: 413`, async () => {
    expect(served.paths['/pets'].post.requestBody.description).toContain('a body of more than 16,384 bytes is a 413');
    expect(Object.keys(served.paths['/pets'].post.responses)).toContain('413');
    const text = JSON.stringify({ name: `Rex${' '.repeat(MAX_BODY_BYTES)}`, categoryId: 1 });
    expect(judge.newPet(text)).toEqual([]);
    const refused = await createPet(text);
    expect([refused.status, refused.body]).toEqual([
      413,
      {
        code: 'invalid_request',
        message: 'The request body is larger than this API accepts (16,384 bytes).',
        status: 413,
      },
    ]);
    const padding = MAX_BODY_BYTES - JSON.stringify({ name: 'Rex', categoryId: 1 }).length;
    const largest = JSON.stringify({ name: `Rex${' '.repeat(padding)}`, categoryId: 1 });
    expect(Buffer.byteLength(largest)).toBe(MAX_BODY_BYTES);
    expect((await createPet(largest)).status).toBe(201);
  });

  it('a query parameter not declared, or given twice: the document says so, and a standard reader refuses it too', async () => {
    expect(served.info.description).toContain(
      'every operation refuses (400) a query parameter it does not declare, or one given twice',
    );
    for (const [query, field] of [
      ['offset=20', 'query.offset'],
      ['limit=5&limit=5', 'query.limit'],
      ['status=sold&status=sold', 'query.status'],
    ] as const) {
      expect(judge.listQuery(new URLSearchParams(query)), query).toEqual([field]);
      expect(refusedFields(await listPets(new URLSearchParams(query)))).toEqual([field]);
    }
  });
});
