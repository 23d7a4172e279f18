import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';
import { send } from '../support/api';
import { processesUsing, runKeys, start, stopAllStarted, waitFor, PROCESS_TEST_TIMEOUT_MS } from '../support/npm-start';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * `npm start` with DYNAMODB_ENDPOINT: it uses that DynamoDB (here a DynamoDB Local this file starts,
 * as another developer's or a container's would be) instead of starting its own, creates the table
 * when it is missing, and `npm run keys` with the same variables reaches the same table. That
 * DynamoDB Local keeps a database per access key, so DYNAMODB_LOCAL_ACCESS_KEY_ID must reach both.
 */
let database: RunningDynamoDbLocal;
const workDirs: string[] = [];

beforeAll(async () => {
  database = await startDynamoDbLocal({ sharedDb: false });
});

afterAll(async () => {
  await stopAllStarted();
  await database?.stop();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-external-'));
  workDirs.push(dir);
  return dir;
}

async function tablesOf(endpoint: string, accessKey: string): Promise<string[]> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: accessKey, secretAccessKey: accessKey },
  });
  return (await client.send(new ListTablesCommand({}), { abortSignal: AbortSignal.timeout(5_000) })).TableNames ?? [];
}

describe('npm start with DYNAMODB_ENDPOINT', () => {
  it('uses that DynamoDB instead of its own: creates the table, says so in one line, serves with the demo keys; npm run keys with the same variables reaches the same table; a restart finds it', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const baseUrl = `http://localhost:${port}/v1`;
    const env = {
      PORT: String(port),
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: database.endpoint,
      TABLE_NAME: `external-${randomUUID()}`,
      DYNAMODB_LOCAL_ACCESS_KEY_ID: 'externalTestKey',
    };

    const first = start(env);
    let created: Awaited<ReturnType<typeof send>>;
    try {
      await waitFor(first, 'Press Ctrl-C to stop.');
      expect(first.output()).toContain(`DynamoDB: ${database.endpoint}, table ${env.TABLE_NAME} (created)`);
      expect(await tablesOf(database.endpoint, env.DYNAMODB_LOCAL_ACCESS_KEY_ID)).toEqual([env.TABLE_NAME]);
      expect(await tablesOf(database.endpoint, 'local')).toEqual([]);
      // No DynamoDB Local of its own: none on the data directory, none of its files there.
      expect(processesUsing(dataDir)).toBe('');
      expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);

      created = await send(baseUrl, 'POST', '/pets', {
        key: 'local-pro-key',
        body: { name: 'Elsewhere', categoryId: 1 },
      });
      expect(created.status).toBe(201);
      const made = runKeys(env, 'create', '--plan', 'business');
      expect(made.status).toBe(0);
      expect((await send(baseUrl, 'GET', '/pets', { key: made.stdout.trim() })).status).toBe(200);
      const listed = JSON.parse(runKeys(env, 'list', '--json').stdout) as { plan: string; demoKey: string | null }[];
      expect(listed.filter((key) => key.demoKey !== null)).toHaveLength(4);
      expect(listed.filter((key) => key.demoKey === null).map((key) => key.plan)).toEqual(['business']);
    } finally {
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    }

    const second = start(env);
    try {
      await waitFor(second, 'Press Ctrl-C to stop.');
      expect(second.output()).toContain(`DynamoDB: ${database.endpoint}, table ${env.TABLE_NAME} (existing)`);
      expect((await send(baseUrl, 'GET', `/pets/${created.body.id}`, { key: 'local-free-key' })).body).toEqual(
        created.body,
      );
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }
  });

  it('fails at once, in one line and with exit code 1, when nothing answers at the endpoint or it is no URL', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const began = Date.now();
    const unreachable = start({ PORT: String(await freePort()), DATA_DIR: tempDir(), DYNAMODB_ENDPOINT: closed });
    expect(await unreachable.exited).toBe(1);
    expect(Date.now() - began).toBeLessThan(15_000);
    const lines = unreachable.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^Cannot start: DynamoDB does not answer at ${closed.replace(/\./g, '\\.')} \\(.+\\)\\.`),
    );

    const garbled = start({ PORT: String(await freePort()), DATA_DIR: tempDir(), DYNAMODB_ENDPOINT: 'localhost:8000' });
    expect(await garbled.exited).toBe(1);
    expect(garbled.output().trim()).toBe(
      'Cannot start: DYNAMODB_ENDPOINT must be an http:// or https:// URL, e.g. http://localhost:8000; got "localhost:8000".',
    );
  });

  it("with PARTITION_MODEL_FACTOR puts the partition model in front of it: says so, and a burst of creates over its partitions' write rates is answered 503 with Retry-After", async () => {
    const port = await freePort();
    const baseUrl = `http://localhost:${port}/v1`;
    const env = {
      PORT: String(port),
      DATA_DIR: tempDir(),
      DYNAMODB_ENDPOINT: database.endpoint,
      TABLE_NAME: `modelled-${randomUUID()}`,
      PARTITION_MODEL_FACTOR: '1000',
    };
    const modelled = start(env);
    try {
      await waitFor(modelled, 'Press Ctrl-C to stop.');
      expect(modelled.output()).toContain(
        "Partition model: DynamoDB's per-partition rates divided by 1000 (3 read and 1 write units a second per partition key value)",
      );
      // One write unit a second for each key's counter (two creates each) and each shard of pets: a burst of creates cannot all be served.
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          send(baseUrl, 'POST', '/pets', {
            key: `local-${['free', 'pro', 'business', 'enterprise'][n % 4]}-key`,
            body: { name: `Burst ${n}`, categoryId: 1 },
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
      for (const answer of answers) expect([201, 503]).toContain(answer.status);
      expect(answers.find((answer) => answer.status === 503)?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    } finally {
      modelled.child.kill('SIGINT');
      expect(await modelled.exited).toBe(0);
    }

    const refused = start({ ...env, PORT: String(await freePort()), PARTITION_MODEL_FACTOR: 'fast' });
    expect(await refused.exited).toBe(1);
    expect(refused.output().trim()).toBe(
      'Cannot start: PARTITION_MODEL_FACTOR must be a number of 1 or more (DynamoDB\'s per-partition rates are divided by it), got "fast".',
    );
  });
});
