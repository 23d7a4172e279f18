import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RELEASE_PROBES, RELEASED_FUNCTIONS, type ReleasedFunction } from '../functions/table';
import { FUNCTION_SETTINGS } from '../infra/functions';
import { KeyRegistry } from '../shared/auth/key-registry';
import { RELEASES_PET_SPACE } from '../shared/auth/principal';
import { now } from '../shared/clock';
import { runCanaryProbes, type CanaryTally } from '../shared/release-check/canary-probes';
import { RELEASE_KEY_PLAN, releasePrincipal } from '../shared/release-check/check-identity';
import type { Invoke } from '../shared/release-check/invocation';
import {
  runReleaseCheck,
  type ReleaseCheckOptions,
  type ReleaseCheckResult,
} from '../shared/release-check/run-release-check';
import { WALK_FUNCTIONS, type WalkFunction } from '../shared/release-check/success-walk';
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

export async function checkBundles(options: BundleCheckOptions): Promise<ReleaseCheckResult<ReleasedFunction>> {
  const { waits } = options;
  // The key is in the registry before the check starts (no creation time: an authorizer that refuses it fails).
  return withReleasedBundles(options, (invoke, releaseKey) =>
    runReleaseCheck(RELEASE_PROBES, invoke, { releaseKey, ...(waits === undefined ? {} : { waits }) }),
  );
}

/**
 * A release as the bundles would see it: the check before traffic, then the release prober's rounds
 * (shared/release-check/canary-probes.ts) as if every walked function were shifting, which is what a
 * canary's new versions get each minute, and what the gates would count of it.
 */
export async function probeBundlesAsCanary(
  options: Omit<BundleCheckOptions, 'waits'> & { readonly rounds: number },
): Promise<{
  readonly check: ReleaseCheckResult<ReleasedFunction>;
  readonly tallies: Partial<Record<WalkFunction, CanaryTally>>;
}> {
  return withReleasedBundles(options, async (invoke, releaseKey) => {
    const check = await runReleaseCheck(RELEASE_PROBES, invoke, { releaseKey });
    const tallies = await runCanaryProbes(invoke, {
      shifting: new Set(WALK_FUNCTIONS),
      principal: releasePrincipal(releaseKey),
      releaseKey,
      releaseKeyIsNew: false,
      at: now(),
      rounds: options.rounds,
      budgetMs: 10 * 60_000,
    });
    return { check, tallies };
  });
}

/** The released bundles, each in a process, with a release key of their own in the registry, for `run`; every process stopped after it. */
async function withReleasedBundles<Result>(
  { build, target, cursorSecret, onStderr }: Omit<BundleCheckOptions, 'waits'>,
  run: (invoke: Invoke<ReleasedFunction>, releaseKey: string) => Promise<Result>,
): Promise<Result> {
  const client = clientFor(target);
  // A release key of the drill's own, as the key mirror copies the stage's from API Gateway: random
  // each run, on the release key's plan, in the releases' pet space.
  const releaseKey = `release_${randomBytes(24).toString('base64url')}`;
  try {
    await ensureTable(client, target.tableName);
    await new KeyRegistry(DynamoDBDocumentClient.from(client), target.tableName).register(
      releaseKey,
      RELEASE_KEY_PLAN,
      undefined,
      RELEASES_PET_SPACE,
    );
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
    return await run(
      (name, event, signal) => (processes.get(name) as FunctionProcess).invoke(event, signal),
      releaseKey,
    );
  } finally {
    await Promise.all([...processes.values()].map((running) => running.stop()));
  }
}
