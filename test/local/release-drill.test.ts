import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReleasedFunction } from '../../functions/table';
import { checkBundles } from '../../local/bundle-release-check';
import { buildReleasedBundles, bundleOf } from '../../local/release-bundles';
import { testDatabase } from '../support/database';
import { PROCESS_TEST_TIMEOUT_MS, root, shellEnvironment, TSX_LOADER } from '../support/npm-start';
import { PROBES, resultsWith } from '../support/release-probes';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS, hookTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * The release drill (npm run release-drill): the release check against the bundles the stack
 * deploys, each in a process of its own with its deployed environment, on DynamoDB Local (this
 * run's, a fresh table each time; the command line's own, which it starts and stops). A good build
 * passes; a build with one broken bundle fails, naming the function and why.
 */
const database = testDatabase();
const directories: string[] = [];
const tables: string[] = [];
let good: string;

beforeAll(async () => {
  good = await temporaryDirectory();
  await buildReleasedBundles(good);
});

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
  await Promise.all(tables.map((TableName) => database.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined)));
});

async function temporaryDirectory(): Promise<string> {
  // Outside the project, as a Lambda function's directory is: a bundle finds no node_modules around it.
  const directory = await mkdtemp(join(tmpdir(), 'release-drill-test-'));
  directories.push(directory);
  return directory;
}

/** The good build with one function's bundle replaced by `code`. */
async function buildWith(name: ReleasedFunction, code: string): Promise<string> {
  const directory = await temporaryDirectory();
  await cp(good, directory, { recursive: true });
  await writeFile(bundleOf(directory, name), code);
  return directory;
}

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

const nameOf = (functionName: ReleasedFunction) => PROBES.find((probe) => probe.functionName === functionName)?.name as string;

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
    expect((await drill(await buildWith(name, code))).result).toEqual({ passed: false, probes: resultsWith(failures) });
  });

  it('npm run release-drill: prints each probe, exits 0 for a good build and 1 for a broken one, and leaves no process behind', async () => {
    const broken = await buildWith('getPet', "throw new Error('broken on load');\n");
    const [passed, failed] = await Promise.all([runDrill('--build', good), runDrill('--build', broken)]);
    expect([passed.code, passed.stderr]).toEqual([0, '']);
    expect(passed.stdout).toBe(
      [
        `Probing the bundles in ${good}, against DynamoDB Local on port ${portOf(passed.stdout)}:`,
        ...PROBES.map(({ name }) => `  passed  ${name}`),
        `Release drill passed: all ${PROBES.length} probes.`,
        '',
      ].join('\n'),
    );
    expect([failed.code, failed.stderr]).toEqual([1, '']);
    expect(failed.stdout).toBe(
      [
        `Probing the bundles in ${broken}, against DynamoDB Local on port ${portOf(failed.stdout)}:`,
        ...PROBES.map(({ name }) => (name === nameOf('getPet') ? `  FAILED  ${name}: failed: Error: broken on load` : `  passed  ${name}`)),
        `Release drill failed: 1 of ${PROBES.length} probes.`,
        '',
      ].join('\n'),
    );
    // Its DynamoDB Local and the functions' processes (each names its bundle) are gone.
    for (const run of [passed, failed]) expect(processesMatching(`-port ${portOf(run.stdout)}\\b`)).toBe('');
    expect([processesMatching(good), processesMatching(broken)]).toEqual(['', '']);
  });

  it('npm run release-drill --build <missing directory>: says so, and exits 1', async () => {
    const missing = join(tmpdir(), `release-drill-missing-${randomUUID()}`);
    expect(await runDrill('--build', missing)).toEqual({ code: 1, stdout: '', stderr: `Release drill could not run: --build ${missing}: no such directory\n` });
  });
});

/** The command as a user runs it (tsx local/release-drill.ts), stopped (SIGTERM: it stops what it started) should it run past 45 s. */
function runDrill(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...TSX_LOADER, 'local/release-drill.ts', ...args], { cwd: root, env: shellEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGTERM'), 45_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function portOf(output: string): string {
  return /on port (\d+):/.exec(output)?.[1] ?? 'none';
}

/** The command lines of running processes that match the pattern. */
function processesMatching(pattern: string): string {
  try {
    return execFileSync('pgrep', ['-af', '--', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
