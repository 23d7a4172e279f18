import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RELEASE_PROBES, RELEASED_FUNCTIONS, type ReleasedFunction } from '../functions/table';
import { FUNCTION_SETTINGS } from '../infra/functions';
import { KeyRegistry } from '../shared/auth/key-registry';
import { RELEASES_PET_SPACE } from '../shared/auth/principal';
import { RELEASE_KEY_PLAN } from '../shared/release-check/check-identity';
import { runReleaseCheck, type ReleaseCheckOptions, type ReleaseCheckResult } from '../shared/release-check/run-release-check';
import { ensureTable } from './create-table';
import { clientFor, type DynamoDbTarget } from './dynamodb-target';
import { startFunctionProcess, type FunctionProcess } from './function-process';
import { bundleOf } from './release-bundles';
import { releasedEnvironment } from './release-environment';

/**
 * The release check (shared/release-check/) against built bundles instead of published versions:
 * the table made as npm start makes it, each released function's bundle in a process of its own
 * with the environment it gets when deployed, invoked with the check's synthetic events (the
 * table's release probes, the very ones the check's function bundles written out). Every
 * process it starts is stopped before it returns or throws.
 */
export interface BundleCheckOptions {
  /** Holds `<function>/index.mjs` for each released function (local/release-bundles.ts). */
  readonly build: string;
  readonly target: DynamoDbTarget;
  readonly cursorSecret: string;
  /** A function's process wrote a line on stderr. */
  readonly onStderr?: (functionName: ReleasedFunction, line: string) => void;
  /** How long the walk waits for a listing to show its pet, and between tries (shorter in the tests). */
  readonly waits?: Pick<NonNullable<ReleaseCheckOptions['waits']>, 'listingWaitMs' | 'retryEveryMs'>;
}

export async function checkBundles({ build, target, cursorSecret, onStderr, waits }: BundleCheckOptions): Promise<ReleaseCheckResult<ReleasedFunction>> {
  const client = clientFor(target);
  // A release key of the drill's own, as the key mirror copies the stage's from API Gateway: random
  // each run, on the release key's plan, in the releases' pet space.
  const releaseKey = `release_${randomBytes(24).toString('base64url')}`;
  try {
    await ensureTable(client, target.tableName);
    await new KeyRegistry(DynamoDBDocumentClient.from(client), target.tableName).register(releaseKey, RELEASE_KEY_PLAN, undefined, RELEASES_PET_SPACE);
  } finally {
    client.destroy();
  }
  const processes = new Map<ReleasedFunction, FunctionProcess>();
  try {
    for (const name of RELEASED_FUNCTIONS) {
      processes.set(
        name,
        startFunctionProcess({
          name,
          bundle: bundleOf(build, name),
          env: releasedEnvironment(name, { target, cursorSecret, memoryMb: FUNCTION_SETTINGS.memorySize }),
          timeoutMs: FUNCTION_SETTINGS.timeout.toMilliseconds(),
          onStderr: (line) => onStderr?.(name, line),
        }),
      );
    }
    // The key is in the registry before the check starts (no creation time: an authorizer that refuses it fails).
    return await runReleaseCheck(RELEASE_PROBES, (name, event, signal) => (processes.get(name) as FunctionProcess).invoke(event, signal), { releaseKey, ...(waits === undefined ? {} : { waits }) });
  } finally {
    await Promise.all([...processes.values()].map((running) => running.stop()));
  }
}
