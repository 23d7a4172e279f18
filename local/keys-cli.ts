/**
 * `npm run keys -- <command>`: manages the keys of the local run's key registry (the stand-in
 * for API Gateway's keys and usage plans). A new key is printed once; only its hash is kept.
 *
 *   create --plan <plan> [--per-minute N --per-day N]     (limits: enterprise only)
 *   list
 *   revoke <key or key id>
 *   set-plan <key or key id> --plan <plan> [--per-minute N --per-day N]
 *
 * It talks to the DynamoDB Local of a running `npm start` (or DYNAMODB_ENDPOINT / TABLE_NAME).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry, type RegisteredKey } from '../shared/auth/key-registry';
import { isPlanName, PLAN_NAMES, type PlanName, type RateLimits } from '../shared/limits/plans';
import { dataDirectory, endpointFile, LOCAL_TABLE_NAME } from './data-dir';

const USAGE = `Usage: npm run keys -- <command>
  create --plan <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]
  list
  revoke <key or key id>
  set-plan <key or key id> --plan <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]
Custom limits (--per-minute and --per-day) are for enterprise keys, which need them.`;

class UsageError extends Error {}

// The SDK's notice that its 2027 releases need Node 22 (the Lambda runtime) is noise for a local
// tool on Node 20; the README says so. Read when the first client is made, so set it here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, target, ...extra] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const registry = await openRegistry();

  switch (command) {
    case 'create': {
      const { apiKey, key } = await registry.create(readPlan(values.plan), readLimits(values));
      process.stdout.write(`${apiKey}\n`);
      process.stderr.write(`Created a ${key.plan} key (key id ${key.keyId}). It is shown only now: keep it safe.\n`);
      return 0;
    }
    case 'list': {
      const keys = await registry.list();
      process.stdout.write(formatKeys(keys));
      return 0;
    }
    case 'revoke': {
      if (target === undefined) throw new UsageError('revoke needs a key or a key id');
      if (!(await registry.revoke(target))) return notFound();
      process.stdout.write('Revoked. A running server stops accepting it within 60 seconds (its key cache).\n');
      return 0;
    }
    case 'set-plan': {
      if (target === undefined) throw new UsageError('set-plan needs a key or a key id');
      const key = await registry.setPlan(target, readPlan(values.plan), readLimits(values));
      if (key === undefined) return notFound();
      process.stdout.write(`Key ${key.keyId} is now on the ${key.plan} plan (${key.limits.perMinute}/min, ${key.limits.perDay}/day); a running server applies it within 60 seconds.\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function notFound(): number {
  process.stderr.write('No such key.\n');
  return 1;
}

function readPlan(plan: string | undefined): PlanName {
  if (!isPlanName(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return plan;
}

function readLimits(values: { 'per-minute'?: string; 'per-day'?: string }): RateLimits | undefined {
  const perMinute = values['per-minute'];
  const perDay = values['per-day'];
  if (perMinute === undefined && perDay === undefined) return undefined;
  const toCount = (value: string | undefined, name: string) => {
    if (value === undefined || !/^[1-9][0-9]{0,9}$/.test(value)) throw new UsageError(`--${name} must be a positive whole number`);
    return Number(value);
  };
  return { perMinute: toCount(perMinute, 'per-minute'), perDay: toCount(perDay, 'per-day') };
}

function formatKeys(keys: RegisteredKey[]): string {
  const rows = [['KEY ID', 'PLAN', 'PER MINUTE', 'PER DAY', 'CREATED'], ...keys.map((k) => [k.keyId, k.plan, String(k.limits.perMinute), String(k.limits.perDay), k.createdAt])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}

async function openRegistry(): Promise<KeyRegistry> {
  const endpoint = process.env.DYNAMODB_ENDPOINT || (await readEndpointFile());
  const client = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
  } catch {
    throw new Error(`DynamoDB Local does not answer at ${endpoint}: start the API with "npm start" first.`);
  }
  return new KeyRegistry(DynamoDBDocumentClient.from(client), process.env.TABLE_NAME ?? LOCAL_TABLE_NAME);
}

async function readEndpointFile(): Promise<string> {
  try {
    return (await readFile(endpointFile(dataDirectory()), 'utf8')).trim();
  } catch {
    throw new Error('The local API is not running: start it with "npm start" first, then manage keys in another terminal.');
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
