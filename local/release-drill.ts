/**
 * `npm run release-drill`: the check CodeDeploy runs before a new version takes traffic
 * (docs/release-check.md), on this machine. It bundles the released functions exactly as the stack
 * deploys them, starts DynamoDB Local (in memory, on a free port) with the table, runs each bundle
 * in a process of its own with its deployed environment, and probes them with the same synthetic
 * requests. Prints each probe's result; exits 0 when every probe passed, 1 otherwise.
 *
 *   npm run release-drill                     bundles into a temporary directory (removed after)
 *   npm run release-drill -- --build <dir>    checks the bundles in <dir> (<function>/index.mjs each)
 *
 * DynamoDB Local, every function's process and the temporary directory are gone when it ends,
 * however it ends.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ReleaseCheckResult } from '../shared/release-check/run-release-check';
import { checkBundles } from './bundle-release-check';
import { LOCAL_REGION, LOCAL_TABLE_NAME } from './data-dir';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from './dynamodb-local';
import { buildReleasedBundles } from './release-bundles';

// Read when the first SDK client is made (the table's): a local Node 20 is not the Lambda runtime's 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  let database: RunningDynamoDbLocal | undefined;
  let temporary: string | undefined;
  let stopping = false;
  const stop = async (exitCode: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      // The functions' processes end with this one (local/function-process.ts), if not already stopped.
      await database?.stop().catch(() => undefined);
      if (temporary !== undefined) await rm(temporary, { recursive: true, force: true });
    }
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop(1));
  process.on('SIGTERM', () => void stop(1));

  try {
    const { values } = parseArgs({ options: { build: { type: 'string' } }, strict: true, allowPositionals: false });
    let build: string;
    if (values.build !== undefined) {
      build = resolve(values.build);
      if (!(await stat(build).catch(() => undefined))?.isDirectory())
        throw new Error(`--build ${values.build}: no such directory`);
    } else {
      // Outside the project: a bundle finds nothing in its node_modules, as in Lambda.
      temporary = await mkdtemp(join(tmpdir(), 'pet-store-release-drill-'));
      build = temporary;
      process.stdout.write('Bundling the released functions as the stack does...\n');
      await buildReleasedBundles(build);
    }
    database = await startDynamoDbLocal();
    process.stdout.write(`Probing the bundles in ${build}, against DynamoDB Local on port ${database.port}:\n`);
    const result = await checkBundles({
      build,
      target: {
        endpoint: database.endpoint,
        tableName: LOCAL_TABLE_NAME,
        region: LOCAL_REGION,
        localAccessKey: 'local',
      },
      cursorSecret: process.env.CURSOR_SECRET || randomBytes(32).toString('base64url'),
      onStderr: (name, line) => process.stderr.write(`${name}: ${line}\n`),
    });
    process.stdout.write(report(result));
    await stop(result.passed ? 0 : 1);
  } catch (error) {
    process.stderr.write(`Release drill could not run: ${error instanceof Error ? error.message : String(error)}\n`);
    await stop(1);
  }
}

/** One line per probe, then the verdict. */
function report({ passed, probes }: ReleaseCheckResult): string {
  const lines = probes.map((probe) =>
    probe.passed ? `  passed  ${probe.name}` : `  FAILED  ${probe.name}: ${probe.reason}`,
  );
  const failed = probes.filter((probe) => !probe.passed).length;
  lines.push(
    passed
      ? `Release drill passed: all ${probes.length} probes and steps of the walk.`
      : `Release drill failed: ${failed} of ${probes.length} probes and steps of the walk.`,
  );
  return `${lines.join('\n')}\n`;
}

void main();
