/**
 * The bench's bounded load run (a child of bench/run.ts): the local server, with the deployed
 * handler modules and the authorizer, against the bench's DynamoDB Local, driven by autocannon
 * over loopback at a fixed concurrency and a fixed number of requests per operation (bounded in
 * time and under the local web ACL's per-address flood guard): each declared operation's main case
 * (bench/cases.ts) as an HTTP request. Prints one JSON object: requests a second, p50/p99 and status
 * counts per operation, and whether every created pet (a 201) is readable. A case with a setup
 * (bench/setups.ts) gets its data made first, one fill per request autocannon sends (and a few
 * more for those a dropped connection sends again), before the readable pets are first counted;
 * each request takes the next.
 *
 *   tsx bench/load.ts <DynamoDB endpoint> <table> <api key> [operation ...]   (no operation: every one)
 */
import { randomUUID } from 'node:crypto';
import autocannon, { type Result } from 'autocannon';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OPERATION_IDS, type OperationId } from '../functions/table';
import { LISTING_SETTLE_MS } from '../shared/pets/pet-ids';
import { mainCaseOf } from './cases';
import {
  bodyOf,
  pathOf,
  poolOf,
  withFill,
  BENCH_LIMITS,
  type RequestEventSpec,
  type SetupFill,
} from './children/events.mjs';
import { fillsFor } from './setups';

const [endpoint, table, apiKey, ...named] = process.argv.slice(2) as [string, string, string, ...string[]];
for (const operation of named)
  if (!(OPERATION_IDS as readonly string[]).includes(operation))
    throw new Error(`bench/load.ts: no operation ${operation}; the operations are ${OPERATION_IDS.join(', ')}`);
const operations = named.length === 0 ? OPERATION_IDS : (named as OperationId[]);
export const LOAD = { connections: 10, amountPerOperation: 3_000, timeoutSeconds: 10 } as const;
/** Fills beyond one a request: a request sent again on a new connection after a timeout takes one more. */
const SPARE_FILLS = 2 * LOAD.connections;

Object.assign(process.env, {
  DYNAMODB_ENDPOINT: endpoint,
  TABLE_NAME: table,
  LOG_LEVEL: 'silent',
  AWS_REGION: 'eu-west-1',
  CURSOR_SECRET: 'bench-cursor-secret',
});
const { KeyRegistry } = await import('../shared/auth/key-registry');
const { startLocalServer } = await import('../local/server');
const rawClient = new DynamoDBClient({
  endpoint,
  region: 'eu-west-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const client = DynamoDBDocumentClient.from(rawClient);
// Limits no run reaches: the load measures serving, not refusing.
await new KeyRegistry(client, table).register(apiKey, 'enterprise', BENCH_LIMITS);
const server = await startLocalServer({ port: 0 });
const auth = { authorization: `Bearer ${apiKey}` };
const basePath = new URL(server.baseUrl).pathname.replace(/\/$/, '');

/** The path and query of a request. */
const pathAndQueryOf = (event: RequestEventSpec) =>
  `${pathOf(event)}${event.query === undefined ? '' : `?${new URLSearchParams(event.query)}`}`;

/**
 * The operation's main case, as autocannon sends it over HTTP (a fixed body; a fresh
 * Idempotency-Key each when the case has one; with a setup, each request's own data from `fills`).
 */
async function run(operation: OperationId, fills: readonly SetupFill[] | undefined): Promise<Result> {
  const { event, name } = mainCaseOf(operation);
  if (event.type !== 'request' || event.withoutAuthorizer)
    throw new Error(
      `the load run sends ${operation}'s main case with the bench key: it must be a request through the authorizer`,
    );
  const body = bodyOf(event, 'load');
  const pool = fills === undefined ? undefined : poolOf(fills, name);
  const perRequest = event.freshIdempotencyKey || pool !== undefined;
  return autocannon({
    url: `${server.baseUrl}${pathAndQueryOf(event)}`,
    connections: LOAD.connections,
    amount: LOAD.amountPerOperation,
    timeout: LOAD.timeoutSeconds,
    title: operation,
    method: event.method as autocannon.Request['method'],
    headers: { ...auth, ...(body === null ? {} : { 'content-type': 'application/json' }) },
    ...(body === null ? {} : { body }),
    ...(perRequest
      ? {
          requests: [
            {
              setupRequest: (request) => ({
                ...request,
                // Built as each request is sent: the path (below the server's base path) with its own data.
                ...(pool === undefined ? {} : { path: `${basePath}${pathAndQueryOf(withFill(event, pool.take()))}` }),
                headers: {
                  ...request.headers,
                  ...(event.freshIdempotencyKey ? { 'idempotency-key': randomUUID() } : {}),
                },
              }),
            },
          ],
        }
      : {}),
  });
}

/** Every pet, page by page through the API: what a client can read. */
async function readablePets(): Promise<number> {
  let count = 0;
  let next: string | undefined = `${server.baseUrl}/pets?limit=100`;
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: auth });
    if (response.status !== 200) throw new Error(`listing answered ${response.status}`);
    count += ((await response.json()) as unknown[]).length;
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return count;
}

try {
  // Each case's setup data, made before anything is counted or timed.
  const fills = {} as Record<OperationId, SetupFill[] | undefined>;
  for (const operation of operations)
    fills[operation] = await fillsFor(
      mainCaseOf(operation),
      { client: rawClient, tableName: table },
      LOAD.amountPerOperation + SPARE_FILLS,
    );
  const before = await readablePets();
  const results = {} as Record<OperationId, Result>;
  for (const operation of operations) results[operation] = await run(operation, fills[operation]);
  // Every 201 is a pet created (createPet's is the interface's only 201).
  const created = Object.values(results).reduce(
    (sum, result) => sum + (result.statusCodeStats?.['201']?.count ?? 0),
    0,
  );
  // A listing shows no id drawn within the settle time (shared/pets/pet-ids.ts): the last creates' wait that long.
  await new Promise((resolve) => setTimeout(resolve, LISTING_SETTLE_MS));
  const after = await readablePets();
  const summary = Object.fromEntries(
    Object.entries(results).map(([operation, result]) => [
      operation,
      {
        requests: result.requests.total,
        requestsPerSecond: Math.round(result.requests.average),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        statuses: Object.fromEntries(
          Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [
            status,
            (stats as { count: number }).count,
          ]),
        ),
        errors: result.errors + result.timeouts,
        seconds: Math.round(result.duration * 10) / 10,
      },
    ]),
  );
  process.stdout.write(
    `${JSON.stringify({ load: LOAD, operations: summary, createdPets: created, readableAfter: after - before })}\n`,
  );
} finally {
  await server.close();
}
