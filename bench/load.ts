/**
 * The bench's bounded load run (a child of bench/run.ts): the local server, with the deployed
 * handler modules and the authorizer, against the bench's DynamoDB Local, driven by autocannon
 * over loopback at a fixed concurrency and a fixed number of requests per operation (bounded in
 * time and under the local web ACL's per-address flood guard). Prints one JSON object: requests a
 * second, p50/p99 and status counts per operation, and whether every created pet is readable.
 *
 *   tsx bench/load.ts <DynamoDB endpoint> <table> <api key>
 */
import autocannon, { type Result } from 'autocannon';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const [endpoint, table, apiKey] = process.argv.slice(2) as [string, string, string];
export const LOAD = { connections: 10, amountPerOperation: 3_000, timeoutSeconds: 10 } as const;

Object.assign(process.env, { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table, LOG_LEVEL: 'silent', AWS_REGION: 'eu-west-1', CURSOR_SECRET: 'bench-cursor-secret' });
const { KeyRegistry } = await import('../shared/auth/key-registry');
const { startLocalServer } = await import('../local/server');
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
// Limits no run reaches: the load measures serving, not refusing.
await new KeyRegistry(client, table).register(apiKey, 'enterprise', { perMinute: 100_000_000, perDay: 100_000_000 });
const server = await startLocalServer({ port: 0 });
const auth = { authorization: `Bearer ${apiKey}` };

async function run(title: string, path: string, options: Partial<autocannon.Options>): Promise<Result> {
  return autocannon({ url: `${server.baseUrl}${path}`, connections: LOAD.connections, amount: LOAD.amountPerOperation, timeout: LOAD.timeoutSeconds, title, ...options });
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
  const before = await readablePets();
  const results = {
    createPet: await run('createPet', '/pets', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Load', categoryId: 2 }) }),
    listPets: await run('listPets', '/pets?limit=20', { headers: auth }),
    getPet: await run('getPet', '/pets/1', { headers: auth }),
  };
  const created = results.createPet.statusCodeStats?.['201']?.count ?? 0;
  const after = await readablePets();
  const summary = Object.fromEntries(
    Object.entries(results).map(([operation, result]) => [
      operation,
      {
        requests: result.requests.total,
        requestsPerSecond: Math.round(result.requests.average),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, (stats as { count: number }).count])),
        errors: result.errors + result.timeouts,
        seconds: Math.round(result.duration * 10) / 10,
      },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ load: LOAD, operations: summary, createdPets: created, readableAfter: after - before })}\n`);
} finally {
  await server.close();
}
