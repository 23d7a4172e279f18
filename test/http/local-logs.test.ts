import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../local/dynamodb-local';
import { send } from '../support/api';
import { root, shellEnvironment, START_ARGS, PROCESS_TEST_TIMEOUT_MS } from '../support/npm-start';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * Pretty and JSON log formats: `npm start` as a user runs it (START_ARGS, the package script's), its
 * stdout a pipe as in CI. With LOG_FORMAT=pretty, one short line per request, the gateway's own answers
 * included; without LOG_FORMAT (stdout not a terminal), the handlers' JSON lines exactly as AWS
 * gets them. The choice itself and the line's details: test/local/request-log.test.ts.
 */
const BANNER_END = 'Press Ctrl-C to stop.\n';
const workDirs: string[] = [];
const children: ChildProcess[] = [];
/** Each test waits less than this in all, so that it fails (and stops its npm start) before vitest gives up on it. */
const TEST_TIMEOUT_MS = 90_000;

afterAll(() => {
  // A safety net: each test stops its own npm start in its finally.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  stdout: () => string;
  output: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  const dataDir = mkdtempSync(join(tmpdir(), 'petstore-logs-'));
  workDirs.push(dataDir);
  const inherited = shellEnvironment();
  delete inherited.LOG_FORMAT;
  delete inherited.NO_COLOR;
  const child = spawn(process.execPath, START_ARGS, {
    cwd: root,
    // The tests' LOG_LEVEL is silent: here the lines are the point.
    env: { ...inherited, LOG_LEVEL: 'info', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let output = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, stdout: () => stdout, output: () => output, exited };
}

async function waitUntil(started: Started, done: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The lines npm start wrote after its banner. */
function linesAfterBanner(started: Started): string[] {
  const text = started.stdout();
  return text
    .slice(text.indexOf(BANNER_END) + BANNER_END.length)
    .split('\n')
    .filter((line) => line !== '');
}

async function stop(started: Started): Promise<void> {
  started.child.kill('SIGINT');
  expect(await started.exited).toBe(0);
}

describe('Pretty and JSON log formats', () => {
  it(
    "LOG_FORMAT=pretty: one short line per request (time, status, method, real path, duration, operation, plan, request id), the gateway's answers too, and no JSON",
    async () => {
      const port = await freePort();
      const baseUrl = `http://localhost:${port}/v1`;
      const started = start({ PORT: String(port), LOG_FORMAT: 'pretty' });
      try {
        await waitUntil(started, () => started.stdout().includes(BANNER_END), 'banner', 60_000);
        const created = await send(baseUrl, 'POST', '/pets', {
          key: 'local-pro-key',
          body: { name: 'Pretty', categoryId: 2 },
        });
        const fetched = await send(baseUrl, 'GET', `/pets/${created.body.id}`, { key: 'local-free-key' });
        const noKey = await send(baseUrl, 'GET', '/pets', { key: null });
        const unknown = await send(baseUrl, 'GET', '/nope');
        await waitUntil(started, () => linesAfterBanner(started).length >= 4, 'four lines', 10_000);
        await new Promise((r) => setTimeout(r, 200)); // and nothing more comes

        const lines = linesAfterBanner(started);
        const short = /^(\d\d:\d\d:\d\d\.\d{3}) (\d{3}) (\S+) +(\S+) +(\d+\.\d)ms (\S+) +(\S+) +([0-9a-f-]{36})$/;
        expect(lines).toHaveLength(4);
        expect(lines.map((line) => short.exec(line)?.slice(2))).toEqual([
          ['201', 'POST', '/v1/pets', expect.any(String), 'createPet', 'pro', created.headers.get('x-request-id')],
          [
            '200',
            'GET',
            `/v1/pets/${created.body.id}`,
            expect.any(String),
            'getPet',
            'free',
            fetched.headers.get('x-request-id'),
          ],
          ['401', 'GET', '/v1/pets', expect.any(String), '-', '-', noKey.headers.get('x-request-id')],
          ['404', 'GET', '/v1/nope', expect.any(String), '-', '-', unknown.headers.get('x-request-id')],
        ]);
        for (const line of lines) expect(line.length).toBeLessThan(120);
        expect(started.stdout()).not.toContain('{"');
        expect(started.stdout()).not.toContain('\u001b'); // stdout is a pipe: no colours
      } finally {
        await stop(started);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "stdout not a terminal (no LOG_FORMAT): the handler's JSON request line with its metrics, unchanged, and nothing for the gateway's own answers",
    async () => {
      const port = await freePort();
      const baseUrl = `http://localhost:${port}/v1`;
      const started = start({ PORT: String(port) });
      try {
        await waitUntil(started, () => started.stdout().includes(BANNER_END), 'banner', 60_000);
        const created = await send(baseUrl, 'POST', '/pets', {
          key: 'local-pro-key',
          body: { name: 'Json', categoryId: 2 },
        });
        await send(baseUrl, 'GET', '/nope');
        await waitUntil(started, () => linesAfterBanner(started).length >= 1, 'a line', 10_000);
        await new Promise((r) => setTimeout(r, 200));

        const lines = linesAfterBanner(started);
        expect(lines).toHaveLength(1);
        const requestId = created.headers.get('x-request-id') as string;
        const entry = JSON.parse(lines[0]!) as Record<string, any>;
        // The line byte for byte, but for what changes from run to run.
        const shape = lines[0]!
          .replace(`"time":"${entry.time}"`, '"time":"T"')
          .replace(requestId, 'ID')
          .replace(`"durationMs":${entry.durationMs}`, '"durationMs":0')
          .replace(`"Latency":${entry.Latency}`, '"Latency":0')
          .replace(`"Timestamp":${entry._aws.Timestamp}`, '"Timestamp":0');
        expect(shape).toBe(
          '{"time":"T","level":"info","msg":"request","requestId":"ID","operation":"createPet","route":"POST /v1/pets","status":201,"durationMs":0,' +
            '"keyId":"b8f8e5e2f9798cc4","plan":"pro","Requests":1,"Latency":0,"Status2xx":1,"Status4xx":0,"Status5xx":0,"RateLimited":0,"KeySuspended":0,' +
            '"_aws":{"Timestamp":0,"CloudWatchMetrics":[{"Namespace":"PetStore/local","Dimensions":[["operation","plan"],["operation"]],"Metrics":[' +
            '{"Name":"Requests","Unit":"Count"},{"Name":"Latency","Unit":"Milliseconds"},{"Name":"Status2xx","Unit":"Count"},{"Name":"Status4xx","Unit":"Count"},' +
            '{"Name":"Status5xx","Unit":"Count"},{"Name":"RateLimited","Unit":"Count"},{"Name":"KeySuspended","Unit":"Count"}]}]}}',
        );
        expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(entry.durationMs).toBe(entry.Latency);
      } finally {
        await stop(started);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
