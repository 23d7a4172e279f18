import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTableInput } from '../../local/create-table';
import { LOCAL_REGION, LOCAL_TABLE_NAME } from '../../local/data-dir';
import { dynamoDbAccessKey, dynamoDbFolder } from '../../local/data-dir-secrets';
import { freePort, startDynamoDbLocal } from '../../local/dynamodb-local';
import { tableDefinition } from '../../shared/dynamodb/table-definition';
import { send } from '../support/api';
import {
  processesInGroup,
  processesUsing,
  PROCESS_TEST_TIMEOUT_MS,
  runKeys as runKeysWith,
  start,
  startThroughNpm,
  stopAllStarted,
  waitFor,
} from '../support/npm-start';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * `npm start` as a user runs it (the same command as the package script: node --import tsx local/start.ts),
 * with its own data folder and port: it starts, serves, keeps data across a restart, stops
 * cleanly on Ctrl-C, and explains itself when Java is missing or the port is taken.
 */
const workDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-start-'));
  workDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await stopAllStarted();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm run keys` as a user runs it beside `npm start`: it finds that run through DATA_DIR. */
function runKeys(dataDir: string, ...args: string[]) {
  return runKeysWith({ DATA_DIR: dataDir }, ...args);
}

/** Each demo key's creation time, as `npm run keys -- list --json` tells it. */
function demoKeyCreationTimes(dataDir: string): Record<string, string> {
  const listed = runKeys(dataDir, 'list', '--json');
  expect(listed.status).toBe(0);
  const keys = JSON.parse(listed.stdout) as { demoKey: string | null; createdAt: string }[];
  return Object.fromEntries(keys.filter((key) => key.demoKey !== null).map((key) => [key.demoKey, key.createdAt]));
}

describe('npm start', () => {
  it('serves the API with the demo keys, keeps pets across a restart, and stops everything on Ctrl-C', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const baseUrl = `http://localhost:${port}/v1`;

    const first = start({ PORT: String(port), DATA_DIR: dataDir });
    await waitFor(first, 'Press Ctrl-C to stop.');
    expect(first.output()).toContain(`listening on ${baseUrl}`);
    for (const key of ['local-free-key', 'local-pro-key', 'local-business-key', 'local-enterprise-key'])
      expect(first.output()).toContain(key);
    const created = await send(baseUrl, 'POST', '/pets', {
      key: 'local-pro-key',
      body: { name: 'Survivor', categoryId: 4 },
    });
    expect(created.status).toBe(201);
    expect(processesUsing(dataDir)).toContain('DynamoDBLocal.jar');
    const listed = runKeys(dataDir, 'list');
    expect(listed.status).toBe(0);
    expect(listed.stdout.match(/ (free|pro|business|enterprise) /g)).toHaveLength(4);
    const demoKeysCreated = demoKeyCreationTimes(dataDir);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain(`Stopped. The data stays in ${dataDir}`);
    expect(processesUsing(dataDir)).toBe('');
    const stopped = runKeys(dataDir, 'list');
    expect(stopped.status).toBe(1);
    expect(stopped.stderr).toContain('The local API is not running: start it with "npm start" first');

    const second = start({ PORT: String(port), DATA_DIR: dataDir });
    try {
      await waitFor(second, 'Press Ctrl-C to stop.');
      const fetched = await send(baseUrl, 'GET', `/pets/${created.body.id}`, { key: 'local-business-key' });
      expect(fetched.body).toEqual(created.body);
      // The demo keys were there already: registered once, they keep their creation time.
      expect(demoKeyCreationTimes(dataDir)).toEqual(demoKeysCreated);
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }
    expect(processesUsing(dataDir)).toBe('');
  });

  it('says clearly that the port is taken, and leaves nothing running', async () => {
    const dataDir = tempDir();
    const blocker: Server = createServer();
    const port = await freePort();
    await new Promise<void>((done) => blocker.listen(port, '127.0.0.1', done));
    try {
      const started = start({ PORT: String(port), DATA_DIR: dataDir });
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain(`port ${port} is already in use`);
      expect(processesUsing(dataDir)).toBe('');
    } finally {
      blocker.close();
    }
  });

  it('a second npm start cannot hurt a running one: refused for its port or its data directory before it starts anything', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const baseUrl = `http://localhost:${port}/v1`;
    const first = start({ PORT: String(port), DATA_DIR: dataDir });
    try {
      await waitFor(first, 'Press Ctrl-C to stop.');
      const endpoint = readFileSync(join(dataDir, 'dynamodb-endpoint'), 'utf8');
      const demoKeysCreated = demoKeyCreationTimes(dataDir);

      const samePort = start({ PORT: String(port), DATA_DIR: dataDir });
      expect(await samePort.exited).toBe(1);
      expect(samePort.output().trim()).toBe(
        `Cannot start: port ${port} is already in use. Stop what uses it or pick another port, e.g. PORT=3001 npm start.`,
      );

      const otherPort = start({ PORT: String(await freePort()), DATA_DIR: dataDir });
      expect(await otherPort.exited).toBe(1);
      // (the pid is that of the process spawned here, which runs start.ts)
      expect(otherPort.output().trim()).toMatch(
        new RegExp(
          `^Cannot start: another "npm start" \\(pid [1-9][0-9]*\\) is using the data directory ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`,
        ),
      );

      // The first one is untouched: one DynamoDB Local on the data, its endpoint file, its keys, its answers.
      expect(
        processesUsing(dataDir)
          .split('\n')
          .filter((line) => line.includes('DynamoDBLocal.jar')),
      ).toHaveLength(1);
      expect(readFileSync(join(dataDir, 'dynamodb-endpoint'), 'utf8')).toBe(endpoint);
      expect(demoKeyCreationTimes(dataDir)).toEqual(demoKeysCreated);
      expect((await send(baseUrl, 'GET', '/pets', { key: 'local-free-key' })).status).toBe(200);
    } finally {
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    }
    expect(existsSync(join(dataDir, 'npm-start.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'dynamodb-endpoint'))).toBe(false);
  });

  it('takes over the lock of an npm start that is gone (killed without cleaning up)', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'npm-start.pid'), '999999999\n');
    const started = start({ PORT: String(await freePort()), DATA_DIR: dataDir });
    try {
      await waitFor(started, 'Press Ctrl-C to stop.');
      // "<pid> <start time>" (local/data-dir-lock.ts)
      const owner = Number(readFileSync(join(dataDir, 'npm-start.pid'), 'utf8').split(/\s/)[0]);
      expect(owner).not.toBe(999_999_999);
      expect(() => process.kill(owner, 0)).not.toThrow(); // the new start's own process
    } finally {
      started.child.kill('SIGINT');
      expect(await started.exited).toBe(0);
    }
  });

  it('refuses a listing settle time below its bound, in one line naming the bound, before it starts anything (issue 52)', async () => {
    const dataDir = tempDir();
    const started = start({ PORT: String(await freePort()), DATA_DIR: dataDir, LISTING_SETTLE_MS: '799' });
    expect(await started.exited).toBe(1);
    const lines = started.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Cannot start: LISTING_SETTLE_MS=799 is below the bound of 800 ms \(clocks 200 ms apart \+ a write sent up to 250 ms after its id \+ an index up to 350 ms behind\)/,
    );
    expect(readdirSync(dataDir)).toEqual([]);
    expect(processesUsing(dataDir)).toBe('');
  });

  it("says in one line what to install when Java is missing, and leaves a running npm start's files alone", async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'dynamodb-endpoint'), 'http://127.0.0.1:8000\n');
    const binDir = join(tempDir(), 'bin');
    mkdirSync(binDir);
    symlinkSync(process.execPath, join(binDir, 'node'));
    const started = start({ PORT: String(await freePort()), DATA_DIR: dataDir, PATH: binDir });
    expect(await started.exited).toBe(1);
    const lines = started.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Cannot start: DynamoDB Local needs Java 17 or newer \(no "java" command was found\)\. Install/,
    );
    expect(readFileSync(join(dataDir, 'dynamodb-endpoint'), 'utf8')).toBe('http://127.0.0.1:8000\n');
    expect(readdirSync(dataDir)).toEqual(['dynamodb-endpoint']);
  });
});

describe('npm start on Ctrl-C in a terminal (issue 49, finding 7)', () => {
  it('stops cleanly on a SIGINT to its whole process group (npm, sh, node, java): the "Stopped." line, the lock removed, no process left', async () => {
    const dataDir = tempDir();
    const started = startThroughNpm({ PORT: String(await freePort()), DATA_DIR: dataDir });
    const group = started.child.pid as number;
    await waitFor(started, 'Press Ctrl-C to stop.');
    expect(existsSync(join(dataDir, 'npm-start.pid'))).toBe(true);
    expect(processesInGroup(group)).toContain('DynamoDBLocal.jar');

    process.kill(-group, 'SIGINT');
    await started.exited;
    // npm waits for its script: by its exit, start.ts has stopped everything and said so.
    expect(started.output()).toContain(`Stopped. The data stays in ${dataDir}; npm start again to go on with it.`);
    expect(existsSync(join(dataDir, 'npm-start.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'dynamodb-endpoint'))).toBe(false);
    await expect.poll(() => processesInGroup(group), { timeout: 10_000 }).toBe('');
    expect(processesUsing(dataDir)).toBe('');
  });

  it('a second SIGINT while it stops (Ctrl-C pressed again) waits for the stop, never cuts it short', async () => {
    const dataDir = tempDir();
    const started = start({ PORT: String(await freePort()), DATA_DIR: dataDir });
    await waitFor(started, 'Press Ctrl-C to stop.');
    // The process of local/start.ts itself ("<pid> <start time>", local/data-dir-lock.ts).
    const own = Number(readFileSync(join(dataDir, 'npm-start.pid'), 'utf8').split(/\s/)[0]);
    process.kill(own, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 30));
    process.kill(own, 'SIGINT');
    expect(await started.exited).toBe(0);
    expect(started.output()).toContain(`Stopped. The data stays in ${dataDir}; npm start again to go on with it.`);
    expect(existsSync(join(dataDir, 'npm-start.pid'))).toBe(false);
    expect(processesUsing(dataDir)).toBe('');
  });
});

describe('npm start on a data directory of the former pets layout (issue 50)', () => {
  it('refuses it in one line naming the last version that moves it, before it changes anything, and leaves nothing running', async () => {
    // A data directory of an earlier version: its table without this version's indexes, a pet under `PET`.
    const dataDir = tempDir();
    const accessKey = await dynamoDbAccessKey(dataDir, LOCAL_REGION);
    mkdirSync(dynamoDbFolder(dataDir), { recursive: true, mode: 0o700 });
    const inDataDir = async <T>(use: (client: DynamoDBClient) => Promise<T>): Promise<T> => {
      const database = await startDynamoDbLocal({ dbPath: dynamoDbFolder(dataDir), sharedDb: false });
      try {
        return await use(
          new DynamoDBClient({
            endpoint: database.endpoint,
            region: LOCAL_REGION,
            credentials: { accessKeyId: accessKey, secretAccessKey: accessKey },
          }),
        );
      } finally {
        await database.stop();
      }
    };
    await inDataDir(async (client) => {
      // Its one index the former status index, on `status` (no index of this version's definition).
      const byStatus = {
        indexName: 'byStatus' as never,
        partitionKey: { name: 'status', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projectedAttributes: ['name', 'categoryId'],
      } as const;
      await client.send(
        new CreateTableCommand(
          createTableInput(LOCAL_TABLE_NAME, { ...tableDefinition, globalSecondaryIndexes: [byStatus] }),
        ),
      );
      await client.send(
        new PutItemCommand({
          TableName: LOCAL_TABLE_NAME,
          Item: {
            pk: { S: 'PET' },
            sk: { S: '0000000000000001' },
            id: { N: '1' },
            name: { S: 'Old' },
            categoryId: { N: '1' },
            status: { S: 'available' },
          },
        }),
      );
    });

    const started = start({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(await started.exited).toBe(1);
    expect(started.output().trim().split('\n')).toEqual([
      `Cannot start: the data directory ${dataDir} holds pets of the former layout (under PET), which this version no longer moves. ` +
        'Move them once with the last version that does: git checkout de7ab16 && npm start (with the same settings), then Ctrl-C and start this version again (docs/upgrading-pets.md).',
    ]);
    expect(processesUsing(dataDir)).toBe('');
    expect(existsSync(join(dataDir, 'npm-start.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'dynamodb-endpoint'))).toBe(false);
    // Nothing changed: no index added, no demo key registered, the pet where it was.
    await inDataDir(async (client) => {
      expect(
        (
          await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE_NAME }))
        ).Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName),
      ).toEqual(['byStatus']);
      expect(
        (await client.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME }))).Items?.map((item) => item.pk?.S),
      ).toEqual(['PET']);
    });
    // Two starts of DynamoDB Local and one of npm start: some 10 s on two idle cores, over 20 on busy ones.
  });
});

describe("npm start's data is its user's alone (issue 23, finding 6)", () => {
  /** Every file and folder under the data directory, with its permission bits. */
  function modesUnder(dir: string): [string, string][] {
    const found: [string, string][] = [[dir, (statSync(dir).mode & 0o777).toString(8)]];
    for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
      const path = join(dir, entry);
      found.push([path, (statSync(path).mode & 0o777).toString(8)]);
    }
    return found;
  }

  it('keeps its data in DynamoDB Local under a random access key (another client sees an empty database), in a directory that only its user may read', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = start({ PORT: String(port), DATA_DIR: dataDir });
    // Stopped whatever fails below, or it would outlive the test.
    try {
      await waitFor(first, 'Press Ctrl-C to stop.');
      const created = await send(`http://localhost:${port}/v1`, 'POST', '/pets', {
        key: 'local-pro-key',
        body: { name: 'Private', categoryId: 4 },
      });
      expect(created.status).toBe(201);
      const endpoint = readFileSync(join(dataDir, 'dynamodb-endpoint'), 'utf8').trim();
      const accessKey = readFileSync(join(dataDir, 'dynamodb-access-key'), 'utf8').trim();
      expect(accessKey).toMatch(/^[A-Za-z0-9]{32}$/);
      const tablesOf = async (key: string) =>
        (
          await new DynamoDBClient({
            endpoint,
            region: 'us-east-1',
            credentials: { accessKeyId: key, secretAccessKey: key },
          }).send(new ListTablesCommand({}))
        ).TableNames;
      // Anyone who reaches the port with made-up credentials (the old shared 'local' among them) finds nothing of ours.
      expect(await tablesOf('local')).toEqual([]);
      expect(await tablesOf('AKIAIOSFODNN7EXAMPLE')).toEqual([]);
      expect(await tablesOf(accessKey)).toEqual(['petstore-local']);
      // Files and folders: the user's only, DynamoDB Local's own included.
      for (const [path, mode] of modesUnder(dataDir))
        expect([path, mode]).toEqual([path, statSync(path).isDirectory() ? '700' : '600']);
    } finally {
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    }
  });

  it("moves the data of a directory made before the rule (DynamoDB Local's shared database) to its own key, makes npm start's files private, and leaves other files alone", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'dynamodb'), { recursive: true, mode: 0o755 });
    const port = await freePort();
    // An npm start of before: DynamoDB Local with -sharedDb, files readable by all, and a pet in it.
    const { startDynamoDbLocal } = await import('../../local/dynamodb-local');
    const old = await startDynamoDbLocal({ dbPath: join(dataDir, 'dynamodb') });
    let pet: { readonly id: number } | undefined;
    try {
      const client = new DynamoDBClient({
        endpoint: old.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const { ensureTable } = await import('../../local/create-table');
      await ensureTable(client, 'petstore-local');
      const { DynamoDbPetRepository } = await import('../../shared/pets/repository');
      const { createDynamoDbClient } = await import('../../shared/dynamodb/client');
      pet = await new DynamoDbPetRepository(
        createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: old.endpoint }),
        'petstore-local',
      ).create({ name: 'From before', categoryId: 2, status: 'available' });
    } finally {
      await old.stop();
    }
    chmodSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'), 0o644);
    // Not npm start's: a file of the user's in DATA_DIR keeps its mode, and a link is not followed.
    writeFileSync(join(dataDir, 'notes.sh'), 'echo hi\n', { mode: 0o755 });
    const outside = join(tempDir(), 'outside.txt');
    writeFileSync(outside, 'x', { mode: 0o644 });
    symlinkSync(outside, join(dataDir, 'dynamodb', 'link.db'));
    const started = start({ PORT: String(port), DATA_DIR: dataDir });
    try {
      await waitFor(started, 'Press Ctrl-C to stop.');
      const accessKey = readFileSync(join(dataDir, 'dynamodb-access-key'), 'utf8').trim();
      expect(readdirSync(join(dataDir, 'dynamodb'))).toContain(`${accessKey}_us-east-1.db`);
      expect(existsSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'))).toBe(false);
      for (const [path, mode] of modesUnder(dataDir).filter(
        ([path]) => !path.endsWith('notes.sh') && !path.endsWith('link.db'),
      )) {
        expect([path, mode]).toEqual([path, statSync(path).isDirectory() ? '700' : '600']);
      }
      expect((statSync(join(dataDir, 'notes.sh')).mode & 0o777).toString(8)).toBe('755');
      expect((statSync(outside).mode & 0o777).toString(8)).toBe('644');
      // The pet written before the move is there.
      const fetched = await send(`http://localhost:${port}/v1`, 'GET', `/pets/${pet?.id}`, { key: 'local-pro-key' });
      expect(fetched.body).toEqual(pet);
    } finally {
      started.child.kill('SIGINT');
      expect(await started.exited).toBe(0);
    }
  });
});
