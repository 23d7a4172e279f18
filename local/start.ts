/**
 * `npm start`: the whole API on this machine. DynamoDB Local (data kept under DATA_DIR, default
 * `.data/`, so pets survive a restart), the table, the demo keys, and the local API Gateway
 * stand-in serving the deployed handler modules on http://localhost:PORT/v1 (PORT: 3000). With
 * DYNAMODB_ENDPOINT, that DynamoDB instead of a DynamoDB Local of its own (local/dynamodb-target.ts).
 * With PARTITION_MODEL_FACTOR, the handlers reach it through the model of DynamoDB's per-partition
 * limits at that fraction of DynamoDB's rates (test/support/partition-model.ts).
 *
 * Everything that can refuse the start is checked before anything is changed: the port, Java,
 * and the data directory's lock (one `npm start` per data directory), or DYNAMODB_ENDPOINT's
 * answer; then a table of a former layout, which this version does not move (local/former-layouts.ts).
 * A failed start leaves the files of a running one alone, and stops only what it started itself.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../shared/auth/key-registry';
import { setLogSink } from '../shared/log';
import {
  CLOCK_SKEW_MS,
  INDEX_LAG_MS,
  LISTING_SETTLE_MS,
  MIN_LISTING_SETTLE_MS,
  YOUNG_ID_MS,
} from '../shared/pets/pet-ids';
import { ensureTable } from './create-table';
import { formerLayoutRefusal, formerLayoutsIn } from './former-layouts';
import { dataDirectory, endpointFile, LOCAL_REGION } from './data-dir';
import { cursorSecret, dynamoDbAccessKey, dynamoDbFolder, privateDataDirectory } from './data-dir-secrets';
import { DEMO_KEYS } from './demo-keys';
import { DataDirectoryInUseError, lockDataDirectory, type DataDirectoryLock } from './data-dir-lock';
import { assertJava, JavaMissingError, startDynamoDbLocal, type RunningDynamoDbLocal } from './dynamodb-local';
import {
  clientFor,
  isInAws,
  namedTarget,
  ownTarget,
  pointHandlersAt,
  tableExists,
  type DynamoDbTarget,
} from './dynamodb-target';
import { chooseLogFormat, logLevelOf, prettyLog, useColour } from './request-log';
import { startLocalServer, type AnsweredRequest, type LocalServer } from './server';
import { DYNAMODB_PARTITION_LIMITS, startPartitionModel, type PartitionModel } from '../test/support/partition-model';

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
  let target: DynamoDbTarget | undefined;
  let model: PartitionModel | undefined;
  let wroteEndpoint = false;
  // Undoes what this run did, and only that.
  const undo = async (exitCode: number): Promise<never> => {
    if (wroteEndpoint) await rm(endpointFile(dataDir), { force: true });
    await server?.close().catch(() => undefined);
    await model?.close().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    await lock?.release();
    if (exitCode === 0 && server !== undefined) {
      const stays =
        database === undefined
          ? `in table ${target?.tableName} at ${target?.endpoint}`
          : `in ${dataDir}; npm start again to go on with it`;
      process.stdout.write(`Stopped. The data stays ${stays}.\n`);
    }
    process.exit(exitCode);
  };
  // A second signal (Ctrl-C pressed again; the tsx CLI, which npm start ran this under before,
  // sent a terminal's Ctrl-C on a second time some 30 ms after the first) waits for the stop under
  // way: exiting then left the lock and no "Stopped." line. The stop is bounded (DynamoDB Local is
  // killed 5 s after it is asked to stop).
  let stopping: Promise<never> | undefined;
  const stop = (exitCode: number): Promise<never> => (stopping ??= undo(exitCode));
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  let tableExisted: boolean;
  try {
    assertListingSettle(process.env.LISTING_SETTLE_MS);
    const named = namedTarget();
    const factor = readPartitionModelFactor(process.env.PARTITION_MODEL_FACTOR);
    if (factor !== undefined && named !== undefined && isInAws(named))
      throw new Error(
        'PARTITION_MODEL_FACTOR works in front of a DynamoDB Local only, not a table in AWS (it has partitions of its own).',
      );
    await assertPortFree(port, host);
    if (named === undefined) {
      await assertJava();
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      lock = await lockDataDirectory(dataDir);
      await privateDataDirectory(dataDir);
      await mkdir(dynamoDbFolder(dataDir), { recursive: true, mode: 0o700 });
      // DynamoDB Local keeps a database per access key *and region*: the local run's region is fixed
      // (ownTarget), so that no AWS_REGION of the shell can make the data seem gone.
      const accessKey = await dynamoDbAccessKey(dataDir, LOCAL_REGION);
      // A database per access key: ours holds the run's data (local/data-dir-secrets.ts).
      database = await startDynamoDbLocal({ dbPath: dynamoDbFolder(dataDir), sharedDb: false });
      target = ownTarget(database.endpoint, accessKey);
    } else {
      // DYNAMODB_ENDPOINT's DynamoDB: no Java, no DynamoDB Local, no lock (the data directory then
      // holds at most the cursor secret, made once with O_EXCL, which runs may share).
      target = named;
    }
    const client = clientFor(target);
    tableExisted = await tableExists(client, target);
    // A DynamoDB Local's table of a former layout (pets under `PET`, keys under `APIKEY`) is moved
    // once by the last version that carries the moves, not by this one: refused before any change.
    if (tableExisted && !isInAws(target)) {
      const former = await formerLayoutsIn(client, target.tableName);
      if (former.length > 0)
        throw new Error(
          formerLayoutRefusal(
            database === undefined
              ? `the table ${target.tableName} at ${target.endpoint}`
              : `the data directory ${dataDir}`,
            former,
          ),
        );
    }
    if (factor !== undefined) {
      model = await startPartitionModel(target.endpoint, { factor });
    }
    // The handler modules read their settings when first imported, so set them first.
    pointHandlersAt(model === undefined ? target : { ...target, endpoint: model.endpoint });
    if (!process.env.CURSOR_SECRET) {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      process.env.CURSOR_SECRET = await cursorSecret(dataDir);
    }

    // A DynamoDB Local's table of an earlier version gets the indexes it lacks; a table in AWS is
    // only created when missing (its indexes are the stack's business).
    if (!tableExisted || !isInAws(target)) await ensureTable(client, target.tableName);
    // The demo keys are public: never into a table in AWS. Registered once: a restart keeps their
    // creation time (and anything `npm run keys` changed).
    if (!isInAws(target)) {
      const registry = new KeyRegistry(DynamoDBDocumentClient.from(client), target.tableName);
      for (const demo of DEMO_KEYS) await registry.registerIfAbsent(demo.apiKey, demo.plan, demo.limits);
    }

    server = await startLocalServer({ port, host, onAnswered });
    if (database !== undefined) {
      // Where `npm run keys` finds this run's DynamoDB Local (with DYNAMODB_ENDPOINT, it is given the same variables).
      await writeFile(endpointFile(dataDir), `${database.endpoint}\n`);
      wroteEndpoint = true;
    }
  } catch (error) {
    process.stderr.write(`${describeStartupError(error, port)}\n`);
    await stop(1);
    return;
  }
  const used = database === undefined ? usedDynamoDb(target, tableExisted) : `DynamoDB Local data: ${dataDir}`;
  const modelled =
    model === undefined
      ? ''
      : `\nPartition model: DynamoDB's per-partition rates divided by ${model.factor} (${DYNAMODB_PARTITION_LIMITS.read / model.factor} read and ${DYNAMODB_PARTITION_LIMITS.write / model.factor} write units a second per partition key value)`;
  printBanner(server.baseUrl, `${used}${modelled}`, !isInAws(target));
}

/**
 * LISTING_SETTLE_MS: unset for the deployed settle time, else at least its bound, below which a
 * page may pass a pet still on its way (shared/pets/pet-ids.ts). The tests set 0 for themselves,
 * never through npm start.
 */
function assertListingSettle(value: string | undefined): void {
  // Not through shared/config: importing it would read the handlers' settings before they are set.
  // A value that is no whole number is refused by the handlers' settings as they load.
  const settleMs = value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
  if (settleMs === undefined || settleMs >= MIN_LISTING_SETTLE_MS) return;
  throw new Error(
    `LISTING_SETTLE_MS=${settleMs} is below the bound of ${MIN_LISTING_SETTLE_MS} ms (clocks ${CLOCK_SKEW_MS} ms apart + a write sent up to ${YOUNG_ID_MS} ms after its id + an index up to ${INDEX_LAG_MS} ms behind): a page could pass a pet still on its way, and a client following new pets would never see it. Leave it unset (${LISTING_SETTLE_MS} ms), or set ${MIN_LISTING_SETTLE_MS} or more (above ${LISTING_SETTLE_MS}, a walk may skip pets created up to the settle time + ${CLOCK_SKEW_MS} ms before it began).`,
  );
}

/** PARTITION_MODEL_FACTOR: unset or empty for none, else a number of 1 or more. */
function readPartitionModelFactor(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor < 1)
    throw new Error(
      `PARTITION_MODEL_FACTOR must be a number of 1 or more (DynamoDB's per-partition rates are divided by it), got "${value}".`,
    );
  return factor;
}

/** The one line that says which DynamoDB a run with DYNAMODB_ENDPOINT uses. */
function usedDynamoDb(target: DynamoDbTarget, tableExisted: boolean): string {
  const how = isInAws(target) ? `; region ${target.region}, your AWS credentials` : '';
  return `DynamoDB: ${target.endpoint}, table ${target.tableName} (${tableExisted ? 'existing' : 'created'})${how}`;
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

function describeStartupError(error: unknown, port: number): string {
  if (error instanceof JavaMissingError || error instanceof DataDirectoryInUseError)
    return `Cannot start: ${error.message}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `Cannot start: port ${port} is already in use. Stop what uses it or pick another port, e.g. PORT=3001 npm start.`;
  if (code === 'EACCES')
    return `Cannot start: no permission to listen on port ${port}; pick a port above 1023 with PORT=...`;
  return `Cannot start: ${error instanceof Error ? error.message : String(error)}`;
}

/** `dynamoDb`: the line saying which DynamoDB the run uses; `demoKeys`: whether they were registered in it. */
function printBanner(baseUrl: string, dynamoDb: string, demoKeys: boolean): void {
  const keys = DEMO_KEYS.map((demo) => `  ${demo.plan.padEnd(11)} ${demo.apiKey}`);
  process.stdout.write(
    [
      `Pet store API listening on ${baseUrl}`,
      dynamoDb,
      ...(demoKeys
        ? [
            'Demo keys (send as "Authorization: Bearer <key>"):',
            ...keys,
            `Try: curl -H "Authorization: Bearer local-free-key" ${baseUrl}/pets`,
          ]
        : [
            'No demo keys: they are public, and this table is in AWS. Make a key with the same DYNAMODB_ENDPOINT and TABLE_NAME: npm run keys -- create --plan free',
          ]),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

void main();
