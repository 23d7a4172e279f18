import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkBundles, probeBundlesAsCanary } from '../../local/bundle-release-check';
import { testDatabase } from '../support/database';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/npm-start';
import { buildWith, buildWrapping, goodBuild, removeBuilds } from '../support/release-builds';
import { PROBES, resultsWith, WALK_STEPS } from '../support/release-probes';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS, hookTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * The release drill (npm run release-drill): the release check against the bundles the stack
 * deploys, each in a process of its own with its deployed environment, on DynamoDB Local (this
 * run's, a fresh table each time; the command line's own, which it starts and stops). A good build
 * passes; a build with one broken bundle fails, naming the function and why. Its command line:
 * release-drill-command.test.ts.
 */
const database = testDatabase();
const INTERNAL_ERROR =
  '{ statusCode: 500, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: "internal_error", message: "Something went wrong.", status: 500 }) }';
const tables: string[] = [];
let good: string;

beforeAll(async () => {
  good = await goodBuild();
});

afterAll(async () => {
  await removeBuilds();
  await Promise.all(
    tables.map((TableName) => database.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined)),
  );
});

/** The drill on this run's DynamoDB Local, in a table of its own. */
async function drill(build: string) {
  const tableName = `release-drill-${randomUUID()}`;
  tables.push(tableName);
  const result = await checkBundles({
    build,
    target: { endpoint: database.endpoint, tableName, region: 'us-east-1', localAccessKey: 'local' },
    cursorSecret: 'release-drill-test-secret',
    // The listing's wait, shorter than the check's 10 s: only a broken listing waits it out.
    waits: { listingWaitMs: 2_000, retryEveryMs: 250 },
  });
  return { result, tableName };
}

describe('the release drill', () => {
  it('passes the build the stack deploys: every probe and every step of the walk', async () => {
    expect((await drill(good)).result).toEqual({ passed: true, probes: resultsWith() });
  });

  it("writes no customer's pet: after it, the table holds its release key, its one pet in the releases' space (expiring in a day), and the counters of its key and address, nothing else", async () => {
    const startedAt = Date.now();
    const { result, tableName } = await drill(good);
    expect(result.passed).toBe(true);
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan(
      { client: database.documentClient },
      { TableName: tableName, ConsistentRead: true },
    ))
      items.push(...(page.Items ?? []));
    const byPartition = (prefix: string) => items.filter((item) => String(item.pk).startsWith(prefix));
    const [key, ...otherKeys] = byPartition('APIKEY#');
    expect([otherKeys, key?.plan, key?.petSpace]).toEqual([[], 'business', 'releases']);
    const keyId = String(key?.sk).slice(0, 16);
    const [pet, ...otherPets] = byPartition('RELEASES#PET#');
    expect(otherPets).toEqual([]);
    expect(pet).toMatchObject({
      name: expect.stringMatching(/^Release check /),
      categoryId: 1,
      statusShard: expect.stringMatching(/^pending#releases#[0-7]$/),
      listShard: expect.stringMatching(/^pets#releases#[0-7]$/),
    });
    expect(Number(pet?.expiresAt) - startedAt / 1000).toBeGreaterThan(86_400 - 60);
    expect(Number(pet?.expiresAt) - Date.now() / 1000).toBeLessThanOrEqual(86_400);
    // Each operation's probe counts one request of the key, and so does each operation's step of the walk; the authorizer's probe one of the address.
    const sentAs = (sender: string) => PROBES.filter((probe) => probe.sentAs === sender).length;
    const rest = items.filter((item) => item !== key && item !== pet);
    expect(
      rest
        .map(({ pk, sk, dayCount }) => ({ pk, sk, dayCount }))
        .sort((a, b) => String(a.pk).localeCompare(String(b.pk))),
    ).toEqual([
      { pk: 'RATE#ip#192.0.2.1', sk: 'counters', dayCount: sentAs('unknownToken') },
      { pk: `RATE#key#${keyId}`, sk: 'counters', dayCount: expect.any(Number) },
    ]);
    // The walk's create, get and first listing; a listing again only if the pet did not show yet (a loaded machine).
    const counted = Number(rest.find((item) => item.pk === `RATE#key#${keyId}`)?.dayCount);
    expect(counted - sentAs('checkPrincipal')).toBeGreaterThanOrEqual(3);
    expect(counted - sentAs('checkPrincipal')).toBeLessThanOrEqual(3 + 2_000 / 250);
  });

  it.each([
    ['getPet', 'its bundle throws on load', "throw new Error('broken on load');\n", 'failed: Error: broken on load'],
    [
      'createPet',
      'its handler throws on invoke',
      "export const handler = async () => { throw new TypeError('broken on invoke'); };\n",
      'failed: TypeError: broken on invoke',
    ],
    [
      'apiDocs',
      'its bundle exports no handler',
      'export const handle = async () => ({ statusCode: 200, body: "" });\n',
      'failed: Runtime.HandlerNotFound: index.handler is undefined or not exported',
    ],
    [
      'listPets',
      'it answers 500',
      'export const handler = async () => ({ statusCode: 500, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: "internal_error", message: "Something went wrong.", status: 500 }) });\n',
      'answered 500 internal_error instead of 200',
    ],
    [
      'authorizer',
      'it allows an unknown token',
      'export const handler = async (event) => ({ principalId: "anyone", policyDocument: { Version: "2012-10-17", Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: event.methodArn }] }, context: {} });\n',
      'allowed an unknown token',
    ],
  ] as const)('fails a build where %s %s, naming the function and why', async (name, _, code, reason) => {
    const failures = Object.fromEntries(
      PROBES.filter((probe) => probe.functionName === name).map((probe) => [probe.name, reason]),
    );
    // The walk goes through every function but apiDocs: it fails at that function's step, and runs none after it.
    const step = WALK_STEPS.findIndex((walkStep) => walkStep.functionName === name);
    const walkReason =
      name === 'authorizer' ? 'allowed the release key, but not to invoke every method of the stage' : reason;
    const walkFailures =
      step === -1
        ? {}
        : Object.fromEntries(
            WALK_STEPS.slice(step).map((walkStep, i) => [
              walkStep.name,
              i === 0 ? walkReason : `not run: the walk's ${name} step failed`,
            ]),
          );
    expect((await drill(await buildWith(good, name, code))).result).toEqual({
      passed: false,
      probes: resultsWith({ ...failures, ...walkFailures }),
    });
  });

  it.each([
    [
      'createPet',
      'answers 500 to every valid create',
      `const answer = await real(event, context);\nreturn answer.statusCode === 201 ? ${INTERNAL_ERROR} : answer;`,
      'answered 500 internal_error instead of 201',
    ],
    [
      'getPet',
      'answers 500 to a get of a pet that exists',
      `const answer = await real(event, context);\nreturn answer.statusCode === 200 ? ${INTERNAL_ERROR} : answer;`,
      'answered 500 internal_error instead of 200',
    ],
    [
      'listPets',
      'answers an empty page where pets exist',
      'const answer = await real(event, context);\nreturn answer.statusCode === 200 ? { ...answer, headers: { ...answer.headers, Link: undefined }, body: "[]" } : answer;',
      'listed 0 pets without the pet created, for 2 s',
    ],
    [
      'authorizer',
      'refuses every key it would allow',
      'const answer = await real(event, context);\nif (answer.policyDocument.Statement[0].Effect === "Allow") throw new Error("Unauthorized");\nreturn answer;',
      'refused the release key (Unauthorized)',
    ],
  ] as const)(
    'fails a build whose %s %s, though its probes pass: at that step of the walk',
    async (name, _, body, reason) => {
      const step = WALK_STEPS.findIndex((walkStep) => walkStep.functionName === name);
      const walkFailures = Object.fromEntries(
        WALK_STEPS.slice(step).map((walkStep, i) => [
          walkStep.name,
          i === 0 ? reason : `not run: the walk's ${name} step failed`,
        ]),
      );
      expect((await drill(await buildWrapping(good, name, body))).result).toEqual({
        passed: false,
        probes: resultsWith(walkFailures),
      });
    },
  );
});

/** The release prober's rounds against the bundles, every walked function as if shifting, in a table of their own. */
async function canary(build: string, rounds: number) {
  const tableName = `release-canary-${randomUUID()}`;
  tables.push(tableName);
  return probeBundlesAsCanary({
    build,
    target: { endpoint: database.endpoint, tableName, region: 'us-east-1', localAccessKey: 'local' },
    cursorSecret: 'release-drill-test-secret',
    rounds,
  });
}
const clean = (sent: number) => ({ sent, failures: 0, unjudged: 0, reasons: [] });

describe("the canary's probes (the release prober's rounds) against the bundles as deployed", () => {
  it('pass the build the stack deploys, after its check: every request judged, none failed', async () => {
    const { check, tallies } = await canary(good, 3);
    expect([check.passed, tallies]).toEqual([
      true,
      { authorizer: clean(3), createPet: clean(3), getPet: clean(3), listPets: clean(3) },
    ]);
  });

  it('count a createPet that crashes on one create in four failed, and its 500 to another sent but not failed (its own Status5xx counts that)', async () => {
    // The prober's creates only (its pets' name), not the check's.
    const flaky = await buildWrapping(
      good,
      'createPet',
      `if (!String(event.body).includes('Release probe')) return real(event, context);\nglobalThis.calls = (globalThis.calls ?? 0) + 1;\nif (globalThis.calls % 4 === 2) throw new Error('broken on invoke');\nif (globalThis.calls % 4 === 0) return ${INTERNAL_ERROR};\nreturn real(event, context);`,
    );
    const { check, tallies } = await canary(flaky, 4);
    expect([check.passed, tallies.createPet, tallies.getPet]).toEqual([
      true,
      { sent: 4, failures: 1, unjudged: 0, reasons: ['failed: Error: broken on invoke'] },
      clean(2),
    ]);
  });

  it('count every request of an authorizer that refuses every key it would allow failed', async () => {
    const refusing = await buildWrapping(
      good,
      'authorizer',
      'const answer = await real(event, context);\nif (answer.policyDocument.Statement[0].Effect === "Allow") throw new Error("Unauthorized");\nreturn answer;',
    );
    const { check, tallies } = await canary(refusing, 3);
    expect([check.passed, tallies.authorizer]).toEqual([
      false,
      { sent: 3, failures: 3, unjudged: 0, reasons: Array(3).fill('failed: Error: Unauthorized') },
    ]);
  });
});
