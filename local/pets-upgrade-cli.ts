/**
 * `npm run pets-upgrade -- <step>`: the steps that move a stage's pets to the sharded layout
 * (docs/upgrading-pets.md), on the table TABLE_NAME names, in AWS (the usual credentials and
 * AWS_REGION) or on DYNAMODB_ENDPOINT. Each step can be run again; exit 0 when it did its part,
 * 1 when `check` found pets without their copy, 2 on a usage error.
 */
import { createDynamoDbClient } from '../shared/dynamodb/client';
import { checkCopy, copyFormerPets, deleteCopiedFormerPets, hasFormerPets, retireCounter } from './pet-layout-upgrade';

const USAGE = `Usage: TABLE_NAME=<table> [AWS_REGION=<region>] [DYNAMODB_ENDPOINT=<url>] npm run pets-upgrade -- <step>
  retire-counter   set the id counter past every id, so that the former version can no longer create
  copy             copy every pet of the former layout to its shard (idempotent, resumable; exit 1 on a conflict)
  check            every former pet has its copy (exit 1 naming those that do not)
  delete-former    delete the former items whose copy checks out (once no version reads them)`;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main([step, ...extra]: string[]): Promise<number> {
  const tableName = process.env.TABLE_NAME;
  if (step === undefined || extra.length > 0 || tableName === undefined || !['retire-counter', 'copy', 'check', 'delete-former'].includes(step)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const client = createDynamoDbClient({ region: process.env.AWS_REGION ?? 'us-east-1', dynamoDbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined, dynamoDbAccessKeyId: process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID });
  switch (step) {
    case 'retire-counter':
      process.stdout.write(`The counter is retired; the last id it had handed out: ${await retireCounter(client, tableName)}.\n`);
      return 0;
    case 'copy': {
      const { copied, present, conflicts } = await copyFormerPets(client, tableName);
      process.stdout.write(`Copied ${copied} pets; ${present} were already copied.\n`);
      if (conflicts.length === 0) return 0;
      process.stdout.write(`${conflicts.length} ids hold another pet in their shard, left as they are: ${conflicts.slice(0, 20).join(', ')}. Do not go on to copied.\n`);
      return 1;
    }
    case 'check': {
      if (!(await hasFormerPets(client, tableName))) {
        process.stdout.write('All 0 former pets have their copy.\n');
        return 0;
      }
      const { former, missing } = await checkCopy(client, tableName);
      if (missing.length > 0) {
        process.stdout.write(`${missing.length} of ${former} former pets have no copy (or another one): ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}. Run copy again.\n`);
        return 1;
      }
      process.stdout.write(`All ${former} former pets have their copy.\n`);
      return 0;
    }
    default:
      process.stdout.write(`Deleted ${await deleteCopiedFormerPets(client, tableName)} former pets.\n`);
      return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`pets-upgrade failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
