import { RELEASE_PROBES, RELEASED_FUNCTIONS, type ReleasedFunction } from '../functions/table';
import { FUNCTION_SETTINGS } from '../infra/functions';
import { runReleaseCheck, type ReleaseCheckResult } from '../shared/release-check/run-release-check';
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
}

export async function checkBundles({ build, target, cursorSecret, onStderr }: BundleCheckOptions): Promise<ReleaseCheckResult<ReleasedFunction>> {
  const client = clientFor(target);
  try {
    await ensureTable(client, target.tableName);
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
    return await runReleaseCheck(RELEASE_PROBES, (name, event, signal) => (processes.get(name) as FunctionProcess).invoke(event, signal));
  } finally {
    await Promise.all([...processes.values()].map((running) => running.stop()));
  }
}
