/**
 * `npm start`: the whole API on this machine. DynamoDB Local (data kept under DATA_DIR, default
 * `.data/`, so pets survive a restart), the table, the demo keys, and the local API Gateway
 * stand-in serving the deployed handler modules on http://localhost:PORT/v1 (PORT: 3000).
 *
 * Everything that can refuse the start is checked before anything is changed: the port, Java,
 * and the data directory's lock (one `npm start` per data directory). A failed start leaves the
 * files of a running one alone, and stops only what it started itself.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../shared/auth/key-registry';
import { setLogSink } from '../shared/log';
import { ensureTable } from './create-table';
import { moveKeysToTheirPartitions } from './key-layout-upgrade';
import { dataDirectory, endpointFile, LOCAL_REGION, LOCAL_TABLE_NAME } from './data-dir';
import { cursorSecret, dynamoDbAccessKey, dynamoDbFolder, privateDataDirectory } from './data-dir-secrets';
import { DEMO_KEYS } from './demo-keys';
import { DataDirectoryInUseError, lockDataDirectory, type DataDirectoryLock } from './data-dir-lock';
import { assertJava, JavaMissingError, startDynamoDbLocal, type RunningDynamoDbLocal } from './dynamodb-local';
import { chooseLogFormat, logLevelOf, prettyLog, useColour } from './request-log';
import { startLocalServer, type AnsweredRequest, type LocalServer } from './server';


// The SDK's notice that its 2027 releases need Node 22 (the Lambda runtime) is noise for a local
// tool on Node 20; docs/architecture.md says so. Read when the first client is made, so set it here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  const port = readPort(process.env.PORT);
  const host = process.env.HOST ?? '127.0.0.1';
  const dataDir = dataDirectory();
  const onAnswered = readableLog();

  let lock: DataDirectoryLock | undefined;
  let database: RunningDynamoDbLocal | undefined;
  let server: LocalServer | undefined;
  let wroteEndpoint = false;
  let stopping = false;
  // Undoes what this run did, and only that.
  const stop = async (exitCode: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      if (wroteEndpoint) await rm(endpointFile(dataDir), { force: true });
      await server?.close().catch(() => undefined);
      await database?.stop().catch(() => undefined);
      await lock?.release();
      if (exitCode === 0 && server !== undefined) process.stdout.write(`Stopped. The data stays in ${dataDir}; npm start again to go on with it.\n`);
    }
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    await assertPortFree(port, host);
    await assertJava();
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    lock = await lockDataDirectory(dataDir);
    await privateDataDirectory(dataDir);
    await mkdir(dynamoDbFolder(dataDir), { recursive: true, mode: 0o700 });
    // DynamoDB Local keeps a database per access key *and region*: the local run's region is fixed,
    // so that no AWS_REGION of the shell can make the data seem gone.
    process.env.AWS_REGION = LOCAL_REGION;
    const accessKey = await dynamoDbAccessKey(dataDir, LOCAL_REGION);
    // A database per access key: ours holds the run's data (local/data-dir-secrets.ts).
    database = await startDynamoDbLocal({ dbPath: dynamoDbFolder(dataDir), sharedDb: false });
    // The handler modules read their settings when first imported, so set them first.
    process.env.TABLE_NAME = LOCAL_TABLE_NAME;
    process.env.DYNAMODB_ENDPOINT = database.endpoint;
    process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID = accessKey;
    process.env.CURSOR_SECRET = await cursorSecret(dataDir);

    const client = new DynamoDBClient({
      endpoint: database.endpoint,
      region: process.env.AWS_REGION,
      credentials: { accessKeyId: accessKey, secretAccessKey: accessKey },
    });
    await ensureTable(client, LOCAL_TABLE_NAME);
    const documentClient = DynamoDBDocumentClient.from(client);
    // A data directory of an earlier version keeps its keys (the new demo keys would not see them).
    await moveKeysToTheirPartitions(documentClient, LOCAL_TABLE_NAME);
    const registry = new KeyRegistry(documentClient, LOCAL_TABLE_NAME);
    // Registered once: a restart keeps their creation time (and anything `npm run keys` changed).
    for (const demo of DEMO_KEYS) await registry.registerIfAbsent(demo.apiKey, demo.plan, demo.limits);

    server = await startLocalServer({ port, host, onAnswered });
    // Where `npm run keys` finds this run's DynamoDB Local.
    await writeFile(endpointFile(dataDir), `${database.endpoint}\n`);
    wroteEndpoint = true;
  } catch (error) {
    process.stderr.write(`${describeStartupError(error, port)}\n`);
    await stop(1);
    return;
  }
  printBanner(server.baseUrl, dataDir);
}

/**
 * In pretty mode (local/request-log.ts), the handlers' log lines go through the readable sink, and
 * the server reports each answered request; in JSON mode nothing changes (and nothing is returned).
 */
function readableLog(): ((request: AnsweredRequest) => void) | undefined {
  const stdoutIsTerminal = process.stdout.isTTY === true;
  if (chooseLogFormat(process.env.LOG_FORMAT, stdoutIsTerminal) === 'json') return undefined;
  const log = prettyLog({
    write: (text) => process.stdout.write(text),
    colour: useColour(process.env.NO_COLOR, stdoutIsTerminal),
    level: logLevelOf(process.env.LOG_LEVEL),
  });
  setLogSink(log.sink);
  return log.onAnswered;
}

/** Refuses a taken port before anything starts (the server itself listens only at the end). */
function assertPortFree(port: number, host: string): Promise<void> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolvePort()));
  });
}

function readPort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) {
    process.stderr.write(`PORT must be a number from 1 to 65535, got "${value}".\n`);
    process.exit(1);
  }
  return port;
}

/** Signs page cursors; kept beside the data so cursors stay valid across restarts. */
function describeStartupError(error: unknown, port: number): string {
  if (error instanceof JavaMissingError || error instanceof DataDirectoryInUseError) return `Cannot start: ${error.message}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `Cannot start: port ${port} is already in use. Stop what uses it or pick another port, e.g. PORT=3001 npm start.`;
  if (code === 'EACCES') return `Cannot start: no permission to listen on port ${port}; pick a port above 1023 with PORT=...`;
  return `Cannot start: ${error instanceof Error ? error.message : String(error)}`;
}

function printBanner(baseUrl: string, dataDir: string): void {
  const keys = DEMO_KEYS.map((demo) => `  ${demo.plan.padEnd(11)} ${demo.apiKey}`).join('\n');
  process.stdout.write(
    [
      `Pet store API listening on ${baseUrl}`,
      `DynamoDB Local data: ${dataDir}`,
      'Demo keys (send as "Authorization: Bearer <key>"):',
      keys,
      `Try: curl -H "Authorization: Bearer local-free-key" ${baseUrl}/pets`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

void main();
