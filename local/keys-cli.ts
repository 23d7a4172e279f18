/**
 * `npm run keys -- <command>`: manages the keys of the local run's key registry (the stand-in
 * for API Gateway's keys and usage plans). A new key is printed once; only its hash is kept.
 * Output is for people, or with --json one JSON value on stdout for scripts; `create` prints the
 * new key alone on stdout and its message on stderr, so the key can be captured either way. Exit codes: 0 done, 1 no such key or no running API, 2 a usage error.
 *
 * It finds the DynamoDB Local of a running `npm start` through the data directory (DATA_DIR,
 * default `.data/`), where `npm start` writes its endpoint; with DYNAMODB_ENDPOINT (and TABLE_NAME)
 * it uses that DynamoDB, as `npm start` given the same variables does (local/dynamodb-target.ts).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hashApiKey, keyIdOf } from '../shared/auth/api-key-hash';
import { KeyRegistry, type RegisteredKey } from '../shared/auth/key-registry';
import { AUTHORIZER_RESULT_TTL_SECONDS } from '../shared/auth/authorizer-contract';
import { isPlanName, PLAN_NAMES, type PlanName, type RateLimits } from '../shared/limits/plans';
import { dataDirectory, endpointFile } from './data-dir';
import { readDynamoDbAccessKey } from './data-dir-secrets';
import { DEMO_KEYS } from './demo-keys';
import { clientFor, namedTarget, ownTarget, tableExists, type DynamoDbTarget } from './dynamodb-target';

const USAGE = `Usage: npm run keys -- <command> [--json]   (npm run -s: without npm's own lines, for scripts)
  create --plan <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]
  list
  revoke <key or key id>
  set-plan <key or key id> --plan <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]
An enterprise key needs --per-minute and --per-day; the other plans take neither.
--json prints one JSON value on stdout. The running API is found through DATA_DIR (default .data/);
an npm start on DYNAMODB_ENDPOINT's DynamoDB, through the same DYNAMODB_ENDPOINT and TABLE_NAME.
Exit codes: 0 done, 1 no such key or no running API, 2 a usage error.`;

class UsageError extends Error {}

// The SDK's notice that its 2027 releases need Node 22 (the Lambda runtime) is noise for a local
// tool on Node 20; docs/architecture.md says so. Read when the first client is made, so set it here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, target, ...extra] = positionals;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === undefined) throw new UsageError('a command is needed');
  if (!COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"`);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if ((command === 'revoke' || command === 'set-plan') && target === undefined)
    throw new UsageError(`${command} needs a key or a key id`);
  // Every usage error is found before the registry is opened.
  const plan = command === 'create' || command === 'set-plan' ? readPlan(values.plan) : undefined;
  const limits = plan === undefined ? undefined : readLimits(plan, values);
  const json = values.json === true;
  const registry = await openRegistry();

  switch (command) {
    case 'create': {
      const { apiKey, key } = await registry.create(plan as PlanName, limits);
      process.stdout.write(json ? `${JSON.stringify({ apiKey, ...describeKey(key) })}\n` : `${apiKey}\n`);
      process.stderr.write(
        `Created ${withArticle(key.plan)} key (key id ${key.keyId}). It is shown only now: keep it safe.\n`,
      );
      return 0;
    }
    case 'list': {
      const keys = await registry.list();
      process.stdout.write(json ? `${JSON.stringify(keys.map(describeKey))}\n` : formatKeys(keys));
      return 0;
    }
    case 'revoke': {
      if (!(await registry.revoke(target as string))) return notFound();
      process.stdout.write(
        json
          ? `${JSON.stringify({ revoked: true })}\n`
          : `Revoked. A running server stops accepting it within ${AUTHORIZER_RESULT_TTL_SECONDS} seconds (the authorizer's cache).\n`,
      );
      return 0;
    }
    default: {
      const key = await registry.setPlan(target as string, plan as PlanName, limits);
      if (key === undefined) return notFound();
      process.stdout.write(
        json
          ? `${JSON.stringify(describeKey(key))}\n`
          : `Key ${key.keyId} is now on the ${key.plan} plan (${key.limits.perMinute}/min, ${key.limits.perDay}/day); a running server applies it within ${AUTHORIZER_RESULT_TTL_SECONDS} seconds.\n`,
      );
      return 0;
    }
  }
}

const COMMANDS = new Set(['create', 'list', 'revoke', 'set-plan']);

/** The demo keys are public (README, banner): `list` names them; any other key shows only its id. */
const DEMO_KEY_BY_ID = new Map(DEMO_KEYS.map((demo) => [keyIdOf(hashApiKey(demo.apiKey)), demo.apiKey]));

function describeKey(key: RegisteredKey): RegisteredKey & { demoKey: string | null } {
  return { ...key, demoKey: DEMO_KEY_BY_ID.get(key.keyId) ?? null };
}

const withArticle = (plan: string): string => `${/^[aeiou]/.test(plan) ? 'an' : 'a'} ${plan}`;

function notFound(): number {
  process.stderr.write('No such key.\n');
  return 1;
}

function readPlan(plan: string | undefined): PlanName {
  if (!isPlanName(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return plan;
}

function readLimits(plan: PlanName, values: { 'per-minute'?: string; 'per-day'?: string }): RateLimits | undefined {
  const perMinute = values['per-minute'];
  const perDay = values['per-day'];
  if (plan !== 'enterprise') {
    if (perMinute !== undefined || perDay !== undefined)
      throw new UsageError(
        `--per-minute and --per-day are for enterprise keys; ${withArticle(plan)} key has the plan's limits`,
      );
    return undefined;
  }
  if (perMinute === undefined || perDay === undefined)
    throw new UsageError('an enterprise key needs its own limits: give --per-minute N and --per-day N');
  const toCount = (value: string | undefined, name: string) => {
    if (value === undefined || !/^[1-9][0-9]{0,9}$/.test(value))
      throw new UsageError(`--${name} must be a positive whole number`);
    return Number(value);
  };
  return { perMinute: toCount(perMinute, 'per-minute'), perDay: toCount(perDay, 'per-day') };
}

function formatKeys(keys: RegisteredKey[]): string {
  const rows = [
    ['KEY ID', 'PLAN', 'PER MINUTE', 'PER DAY', 'CREATED', 'DEMO KEY'],
    ...keys.map((k) => [
      k.keyId,
      k.plan,
      String(k.limits.perMinute),
      String(k.limits.perDay),
      k.createdAt,
      DEMO_KEY_BY_ID.get(k.keyId) ?? '',
    ]),
  ];
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return `${rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** The registry of the DynamoDB npm start uses, by its rule (local/dynamodb-target.ts). */
async function openRegistry(): Promise<KeyRegistry> {
  const named = namedTarget();
  const target = named ?? (await runningTarget());
  const client = clientFor(target);
  let exists: boolean;
  try {
    exists = await tableExists(client, target);
  } catch (error) {
    throw named === undefined
      ? new Error(`${(error as Error).message} Is "npm start" still running? Start it again first.`)
      : error;
  }
  if (!exists)
    throw new Error(
      `There is no table ${target.tableName} at ${target.endpoint}: start the API on it first (npm start with the same DYNAMODB_ENDPOINT and TABLE_NAME).`,
    );
  return new KeyRegistry(DynamoDBDocumentClient.from(client), target.tableName);
}

/** A running npm start's own DynamoDB Local, found through its data directory. */
async function runningTarget(): Promise<DynamoDbTarget> {
  let endpoint: string;
  try {
    endpoint = (await readFile(endpointFile(dataDirectory()), 'utf8')).trim();
  } catch {
    throw new Error(
      'The local API is not running: start it with "npm start" first, then manage keys in another terminal.',
    );
  }
  const accessKey = await readDynamoDbAccessKey(dataDirectory());
  if (accessKey === undefined)
    throw new Error(`No access key in ${dataDirectory()}: restart the API with "npm start", then manage keys.`);
  return ownTarget(endpoint, accessKey);
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
