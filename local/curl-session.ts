/**
 * The README's curl session, as a user sees it: `npm run curl-session` runs it against a fresh
 * store (an in-memory DynamoDB Local, the local server, the demo keys, the service clock pinned)
 * and writes it between the README's curl-session markers. test/http/curl-session.test.ts runs
 * it again and compares, so the README cannot show what the API does not send. Headers a step
 * does not show are marked with `…`; a fresh run differs only in the request ids.
 */
import { request as httpRequest } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setClock } from '../shared/clock';
import { drawPetId, setIdRandomness } from '../shared/pets/pet-ids';

interface Step {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly key?: string;
  readonly body?: string;
  /** The response headers shown, in the order sent; any other is marked `…`. */
  readonly show: readonly string[];
}

/** Where the session pretends to run: the README's quick start. */
export const SESSION_BASE_URL = 'http://localhost:3000/v1';
/**
 * The service clock during the session, so that windows, resets and ids read the same every run:
 * a step a second (a listing shows pets once their ids are a second old, as for a user typing).
 */
export const SESSION_TIME = Date.UTC(2026, 10, 23, 10, 0, 10);
const STEP_MS = 1_000;

const EVERY_OPERATION_HEADER = [
  'Content-Type',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Cache-Control',
  'X-Content-Type-Options',
  'X-Request-Id',
];

const STEPS: readonly Step[] = [
  {
    method: 'POST',
    path: '/pets',
    key: 'local-free-key',
    body: '{"name":"Rex","categoryId":3}',
    show: ['Location', ...EVERY_OPERATION_HEADER],
  },
  {
    method: 'POST',
    path: '/pets',
    key: 'local-free-key',
    body: '{"name":"Bella","categoryId":3,"status":"pending"}',
    show: ['Location'],
  },
  { method: 'GET', path: '/pets?limit=1', key: 'local-free-key', show: ['Link', 'X-RateLimit-Remaining'] },
  { method: 'GET', path: '/pets?status=pending', key: 'local-free-key', show: ['X-RateLimit-Remaining'] },
  {
    method: 'GET',
    path: `/pets/${drawPetId(SESSION_TIME, () => 1)}`,
    key: 'local-free-key',
    show: ['Deprecation', 'Sunset', 'Link'],
  },
  { method: 'POST', path: '/pets', key: 'local-free-key', body: '{"name":"","staus":"sold"}', show: ['Content-Type'] },
  { method: 'GET', path: '/pets', show: ['WWW-Authenticate'] },
];

/**
 * The session against a local server at `serverUrl` in this process (its requests name
 * localhost:3000 as their Host, and the server's own address in its links is shown as
 * localhost:3000): it sets the service clock for each step, and the ids' random bits to 1, 2, 3,
 * ... so that the ids are the same every run.
 */
export async function runCurlSession(serverUrl: string): Promise<string> {
  const parts: string[] = [];
  let drawn = 0;
  const restoreRandomness = setIdRandomness(() => (drawn += 1));
  try {
    for (const [i, step] of STEPS.entries()) {
      const restoreClock = setClock(() => SESSION_TIME + i * STEP_MS);
      try {
        parts.push(`$ ${curlCommand(step)}\n${await answerOf(serverUrl, step)}`);
      } finally {
        restoreClock();
      }
    }
  } finally {
    restoreRandomness();
  }
  return `\`\`\`sh\n${parts.join('\n\n')}\n\`\`\`\n`;
}

function curlCommand(step: Step): string {
  const url = `${SESSION_BASE_URL}${step.path}`;
  const quotedUrl = url.includes('?') ? `'${url}'` : url;
  const auth = step.key === undefined ? '' : ` -H 'Authorization: Bearer ${step.key}'`;
  if (step.method === 'GET') return `curl -i ${quotedUrl}${auth}`;
  return `curl -i -X POST ${quotedUrl} \\\n   ${auth} -H 'Content-Type: application/json' \\\n    -d '${step.body ?? ''}'`;
}

function answerOf(serverUrl: string, step: Step): Promise<string> {
  const server = new URL(serverUrl);
  const headers: Record<string, string> = {
    Host: new URL(SESSION_BASE_URL).host,
    'User-Agent': 'curl/8.14.1',
    Accept: '*/*',
  };
  if (step.key !== undefined) headers.Authorization = `Bearer ${step.key}`;
  if (step.body !== undefined) headers['Content-Type'] = 'application/json';
  // Links name the server's own address (never the Host sent): the port it runs on here is the session's 3000.
  const asInSession = (value: string) =>
    value.replaceAll(`//localhost:${server.port}/`, `//${new URL(SESSION_BASE_URL).host}/`);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: server.hostname,
        port: server.port,
        method: step.method,
        path: `${server.pathname}${step.path}`,
        headers,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage}`];
          let omitted = false;
          for (let i = 0; i < response.rawHeaders.length; i += 2) {
            const name = response.rawHeaders[i] as string;
            const shown = step.show.find((wanted) => wanted.toLowerCase() === name.toLowerCase());
            if (shown === undefined) omitted = true;
            else lines.push(`${shown}: ${asInSession(response.rawHeaders[i + 1] as string)}`);
          }
          if (omitted) lines.push('…');
          resolve(`${lines.join('\n')}\n\n${body}`);
        });
      },
    );
    request.on('error', reject);
    request.end(step.body);
  });
}

export const SESSION_START = '<!-- curl-session: generated by `npm run curl-session`; do not edit -->';
export const SESSION_END = '<!-- curl-session end -->';

/** The session as the README holds it. */
export function sessionInReadme(readme: string): string {
  const start = readme.indexOf(SESSION_START);
  const end = readme.indexOf(SESSION_END);
  if (start === -1 || end < start) throw new Error('the README has no curl-session markers');
  return `${readme.slice(start + SESSION_START.length, end).trim()}\n`;
}

async function main(): Promise<void> {
  // A fresh store: DynamoDB Local in memory, the table and demo keys, the local server on a free port.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.LOG_LEVEL ??= 'silent';
  const { startDynamoDbLocal } = await import('./dynamodb-local');
  const database = await startDynamoDbLocal();
  try {
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: database.endpoint,
      TABLE_NAME: 'curl-session',
      AWS_REGION: 'us-east-1',
      CURSOR_SECRET: 'curl-session',
    });
    const [
      { DynamoDBClient },
      { DynamoDBDocumentClient },
      { ensureTable },
      { KeyRegistry },
      { DEMO_KEYS },
      { setClock },
      { startLocalServer },
    ] = await Promise.all([
      import('@aws-sdk/client-dynamodb'),
      import('@aws-sdk/lib-dynamodb'),
      import('./create-table'),
      import('../shared/auth/key-registry'),
      import('./demo-keys'),
      import('../shared/clock'),
      import('./server'),
    ]);
    const client = new DynamoDBClient({
      endpoint: database.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(client, 'curl-session');
    const registry = new KeyRegistry(DynamoDBDocumentClient.from(client), 'curl-session');
    for (const demo of DEMO_KEYS) await registry.register(demo.apiKey, demo.plan, demo.limits);
    setClock(() => SESSION_TIME);
    const server = await startLocalServer({ port: 0 });
    try {
      const session = await runCurlSession(server.baseUrl);
      const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
      const readme = readFileSync(readmePath, 'utf8');
      const start = readme.indexOf(SESSION_START);
      const end = readme.indexOf(SESSION_END);
      if (start === -1 || end < start) throw new Error('the README has no curl-session markers');
      writeFileSync(readmePath, `${readme.slice(0, start + SESSION_START.length)}\n${session}${readme.slice(end)}`);
      process.stdout.write('wrote the curl session into README.md\n');
    } finally {
      await server.close();
    }
  } finally {
    await database.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
