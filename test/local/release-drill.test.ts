import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkBundles } from '../../local/bundle-release-check';
import { testDatabase } from '../support/database';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/npm-start';
import { buildWith, goodBuild, removeBuilds } from '../support/release-builds';
import { PROBES, resultsWith } from '../support/release-probes';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS, hookTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * The release drill (npm run release-drill): the release check against the bundles the stack
 * deploys, each in a process of its own with its deployed environment, on DynamoDB Local (this
 * run's, a fresh table each time; the command line's own, which it starts and stops). A good build
 * passes; a build with one broken bundle fails, naming the function and why. Its command line:
 * release-drill-command.test.ts.
 */
const database = testDatabase();
const tables: string[] = [];
let good: string;

beforeAll(async () => {
  good = await goodBuild();
});

afterAll(async () => {
  await removeBuilds();
  await Promise.all(tables.map((TableName) => database.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined)));
});

/** The drill on this run's DynamoDB Local, in a table of its own. */
async function drill(build: string) {
  const tableName = `release-drill-${randomUUID()}`;
  tables.push(tableName);
  const result = await checkBundles({
    build,
    target: { endpoint: database.endpoint, tableName, region: 'us-east-1', localAccessKey: 'local' },
    cursorSecret: 'release-drill-test-secret',
  });
  return { result, tableName };
}

describe('the release drill', () => {
  it('passes the build the stack deploys: every probe', async () => {
    expect((await drill(good)).result).toEqual({ passed: true, probes: resultsWith() });
  });

  it('writes no pet: after it, the table holds the counters of the check\'s principal and of its address, nothing else', async () => {
    const { result, tableName } = await drill(good);
    expect(result.passed).toBe(true);
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan({ client: database.documentClient }, { TableName: tableName, ConsistentRead: true })) items.push(...(page.Items ?? []));
    // Each operation's probe counts one request of the principal; the authorizer's one of the address.
    const sentAs = (sender: string) => PROBES.filter((probe) => probe.sentAs === sender).length;
    expect(items.map(({ pk, sk, dayCount }) => ({ pk, sk, dayCount })).sort((a, b) => String(a.pk).localeCompare(String(b.pk)))).toEqual([
      { pk: 'RATE#ip#192.0.2.1', sk: 'counters', dayCount: sentAs('unknownToken') },
      { pk: 'RATE#key#0000000000000000', sk: 'counters', dayCount: sentAs('checkPrincipal') },
    ]);
  });

  it.each([
    ['getPet', 'its bundle throws on load', "throw new Error('broken on load');\n", 'failed: Error: broken on load'],
    ['createPet', 'its handler throws on invoke', "export const handler = async () => { throw new TypeError('broken on invoke'); };\n", 'failed: TypeError: broken on invoke'],
    ['apiDocs', 'its bundle exports no handler', 'export const handle = async () => ({ statusCode: 200, body: "" });\n', 'failed: Runtime.HandlerNotFound: index.handler is undefined or not exported'],
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
    const failures = Object.fromEntries(PROBES.filter((probe) => probe.functionName === name).map((probe) => [probe.name, reason]));
    expect((await drill(await buildWith(good, name, code))).result).toEqual({ passed: false, probes: resultsWith(failures) });
  });
});
