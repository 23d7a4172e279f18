/**
 * `npm run pets-upgrade -- <step>`: what is left of the steps that moved a stage's pets to the
 * sharded layout (docs/upgrading-pets.md), on the table TABLE_NAME names, in AWS (the usual
 * credentials and AWS_REGION) or on DYNAMODB_ENDPOINT: `check` and `delete-former`, for a stage
 * that went through the steps and skipped the last. The steps before (retire-counter, copy) and
 * the deploys around them are the last version's that carries them (local/former-layouts.ts).
 * Each step can be run again; exit 0 when it did its part, 1 when `check` found pets without
 * their copy, 2 on a usage error.
 */
import { createDynamoDbClient } from '../shared/dynamodb/client';
import { LAST_VERSION_WITH_THE_MOVES } from './former-layouts';
import { checkCopy, deleteCopiedFormerPets, hasFormerPets } from './pet-layout-upgrade';

const USAGE = `Usage: TABLE_NAME=<table> [AWS_REGION=<region>] [DYNAMODB_ENDPOINT=<url>] npm run pets-upgrade -- <step>
  check            every former pet has its copy (exit 1 naming those that do not)
  delete-former    delete the former items whose copy checks out (once no version reads them)
The steps before them (retire-counter, copy) and the deploys between are those of ${LAST_VERSION_WITH_THE_MOVES}: git checkout ${LAST_VERSION_WITH_THE_MOVES} (docs/upgrading-pets.md).`;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main([step, ...extra]: string[]): Promise<number> {
  const tableName = process.env.TABLE_NAME;
  if (step === undefined || extra.length > 0 || tableName === undefined || !['check', 'delete-former'].includes(step)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const client = createDynamoDbClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    dynamoDbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    dynamoDbAccessKeyId: process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID,
  });
  switch (step) {
    case 'check': {
      if (!(await hasFormerPets(client, tableName))) {
        process.stdout.write('All 0 former pets have their copy.\n');
        return 0;
      }
      const { former, missing } = await checkCopy(client, tableName);
      if (missing.length > 0) {
        process.stdout.write(
          `${missing.length} of ${former} former pets have no copy (or another one): ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}. Run the copy again, with ${LAST_VERSION_WITH_THE_MOVES} (docs/upgrading-pets.md).\n`,
        );
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
