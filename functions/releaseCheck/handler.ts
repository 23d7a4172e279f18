import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '../../shared/config';
import { loggedError, writeLog } from '../../shared/log';
import { HOOK_MARGIN_MS, KEY_READ_DEADLINE_MS, REPORT_DEADLINE_MS } from '../../shared/release-check/hook-deadlines';
import { KEY_READ_RETRY_MS, readReleaseKey, type ApiKeyReader } from '../../shared/release-check/release-key-reader';
import { invokeVersions, THROTTLED_RETRY_MS, type LambdaInvoker } from '../../shared/release-check/version-invoker';
import {
  CHECK_DEADLINE_MS,
  runReleaseCheck,
  type ProbeResult,
  type ReleaseCheckOptions,
  type ReleaseCheckResult,
} from '../../shared/release-check/run-release-check';
import { RELEASE_PROBES, RELEASED_FUNCTIONS, type ReleasedFunction } from './probes.generated';

/**
 * CodeDeploy's BeforeAllowTraffic hook: before any request reaches the new versions, invokes each
 * one (RELEASE_CHECK_TARGETS: function name → qualified version ARN) with the release check's
 * synthetic requests (the functions' declared probes, gathered from the table of functions into
 * ./probes.generated.ts; then the walk through the success paths, as the stage's release key,
 * whose value it reads from API Gateway first: RELEASE_API_KEY_ID; shared/release-check/ makes
 * and judges them), then reports Succeeded or Failed to CodeDeploy, always, whatever the probes
 * did: a Failed stops the release, the alias stays where it was. One log line per failed probe and
 * one for the check, which never holds the key. No other AWS call (docs/release-check.md).
 */

/** What CodeDeploy invokes a lifecycle hook with. */
export interface LifecycleHookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

/** The calls the hook makes (the clients below; the tests give their own). */
export interface HookClients {
  readonly apiGateway: ApiKeyReader;
  readonly lambda: LambdaInvoker;
  readonly codeDeploy: {
    send(command: PutLifecycleEventHookExecutionStatusCommand, options: { abortSignal: AbortSignal }): Promise<unknown>;
  };
}

export { KEY_READ_DEADLINE_MS, KEY_READ_RETRY_MS, REPORT_DEADLINE_MS, THROTTLED_RETRY_MS };

/** What the stack tells the hook: the versions to check (RELEASE_CHECK_TARGETS) and the release key's API Gateway id (RELEASE_API_KEY_ID); the deadlines, shorter in tests. */
export interface HookSettings {
  readonly targetsJson: string | undefined;
  readonly releaseApiKeyId: string | undefined;
  readonly checkDeadlineMs?: number;
  readonly keyReadDeadlineMs?: number;
  /** The walk's waits (its listing's settle time and retries), shorter in tests. */
  readonly waits?: ReleaseCheckOptions['waits'];
}

export function releaseCheckHook(clients: HookClients, settings: HookSettings) {
  return async (event: LifecycleHookEvent, context?: { getRemainingTimeInMillis(): number }): Promise<void> => {
    const startedAt = performance.now();
    const deploymentId = event?.DeploymentId;
    const lifecycleEventHookExecutionId = event?.LifecycleEventHookExecutionId;
    if (typeof deploymentId !== 'string' || typeof lifecycleEventHookExecutionId !== 'string') {
      writeLog({
        level: 'error',
        msg: 'release check',
        reason: 'not invoked by CodeDeploy: no DeploymentId and LifecycleEventHookExecutionId to report to',
      });
      throw new Error('The release check runs as a CodeDeploy lifecycle hook only.');
    }
    const targets = readReleaseTargets(settings.targetsJson);
    let result: ReleaseCheckResult<ReleasedFunction> | undefined;
    let problem: string | undefined;
    const releaseKey =
      typeof targets === 'string'
        ? undefined
        : await readReleaseKey(
            clients.apiGateway,
            settings.releaseApiKeyId,
            settings.keyReadDeadlineMs ?? KEY_READ_DEADLINE_MS,
          );
    if (typeof targets === 'string') problem = targets;
    else if (releaseKey === undefined || !releaseKey.ok) problem = releaseKey?.problem;
    else {
      try {
        const deadlineMs = checkDeadlineMs(settings.checkDeadlineMs, context);
        result = await runReleaseCheck(RELEASE_PROBES, invokeVersions(clients.lambda, targets), {
          releaseKey: releaseKey.value,
          releaseKeyCreatedAt: releaseKey.createdAt,
          deadlineMs,
          ...(settings.waits === undefined ? {} : { waits: settings.waits }),
        });
      } catch (error) {
        // runReleaseCheck does not throw; should it, the release fails rather than go unchecked.
        problem = `the check failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    for (const probe of result?.probes ?? []) {
      if (probe.passed && probe.note !== undefined)
        writeLog({
          level: 'warn',
          msg: 'release check step not judged',
          deploymentId,
          probe: probe.name,
          function: probe.functionName,
          note: probe.note,
        });
    }
    const failed =
      result?.probes.filter(
        (probe): probe is Extract<ProbeResult<ReleasedFunction>, { passed: false }> => !probe.passed,
      ) ?? [];
    for (const probe of failed)
      writeLog({
        level: 'error',
        msg: 'release check probe failed',
        deploymentId,
        probe: probe.name,
        function: probe.functionName,
        reason: probe.reason,
      });
    const status = result?.passed === true ? 'Succeeded' : 'Failed';
    writeLog({
      level: status === 'Succeeded' ? 'info' : 'error',
      msg: 'release check',
      deploymentId,
      status,
      ...(problem === undefined ? {} : { reason: problem }),
      ...(typeof targets === 'string' ? {} : { versions: versionsOf(targets) }),
      probes: result?.probes.length ?? 0,
      failedProbes: failed.length,
      durationMs: Math.round(performance.now() - startedAt),
    });
    try {
      await clients.codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({ deploymentId, lifecycleEventHookExecutionId, status }),
        {
          abortSignal: AbortSignal.timeout(REPORT_DEADLINE_MS),
        },
      );
    } catch (error) {
      // Thrown on: the invocation fails, and CodeDeploy fails the hook once its own wait ends.
      writeLog({ level: 'error', msg: 'release check not reported', deploymentId, status, error: loggedError(error) });
      throw error;
    }
  };
}

/** A Lambda version's ARN: `arn:aws:lambda:eu-west-1:123456789012:function:name:7`; never `$LATEST` or an alias. */
const QUALIFIED_VERSION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+$/;

/** RELEASE_CHECK_TARGETS: each released function's version to check; else the one line that says why it is unusable. */
export function readReleaseTargets(json: string | undefined): Readonly<Record<ReleasedFunction, string>> | string {
  if (json === undefined || json === '') return 'RELEASE_CHECK_TARGETS is not set';
  let targets: unknown;
  try {
    targets = JSON.parse(json);
  } catch {
    return 'RELEASE_CHECK_TARGETS is not JSON';
  }
  if (typeof targets !== 'object' || targets === null || Array.isArray(targets))
    return 'RELEASE_CHECK_TARGETS is not a JSON object';
  const given = targets as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !(RELEASED_FUNCTIONS as readonly string[]).includes(name));
  if (unknown.length > 0)
    return `RELEASE_CHECK_TARGETS names functions the check has no probe for: ${unknown.join(', ')}`;
  const missing = RELEASED_FUNCTIONS.filter((name) => given[name] === undefined);
  if (missing.length > 0) return `RELEASE_CHECK_TARGETS gives no version of ${missing.join(', ')}`;
  const unqualified = RELEASED_FUNCTIONS.filter(
    (name) => typeof given[name] !== 'string' || !QUALIFIED_VERSION_ARN.test(given[name]),
  );
  if (unqualified.length > 0)
    return `RELEASE_CHECK_TARGETS gives no qualified version ARN for ${unqualified.join(', ')}`;
  return given as Record<ReleasedFunction, string>;
}

/** Each version by number, for the log line. */
function versionsOf(targets: Readonly<Record<ReleasedFunction, string>>): Record<string, string> {
  return Object.fromEntries(
    RELEASED_FUNCTIONS.map((name) => [name, targets[name].slice(targets[name].lastIndexOf(':') + 1)]),
  );
}

/** The check's deadline: its own, or less when the function has less time left than it and the report need (none left: every probe fails at once, and Failed is reported). */
function checkDeadlineMs(
  configured: number | undefined,
  context: { getRemainingTimeInMillis(): number } | undefined,
): number {
  const own = configured ?? CHECK_DEADLINE_MS;
  if (typeof context?.getRemainingTimeInMillis !== 'function') return own;
  return Math.max(0, Math.min(own, context.getRemainingTimeInMillis() - REPORT_DEADLINE_MS - HOOK_MARGIN_MS));
}

// An invocation may last a function's timeout (10 s) and its cold start. The SDK's attempts, and
// invokeVersions' own waits when throttled (a release starts every function's check at once, and a
// new account's concurrency quota is small); the probe's deadline aborts whatever attempt is running.
const lambda = new LambdaClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 20_000, throwOnRequestTimeout: true },
});
const codeDeploy = new CodeDeployClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
});

const apiGateway = new APIGatewayClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
});

export const handler = releaseCheckHook(
  { lambda, codeDeploy, apiGateway },
  { targetsJson: config.releaseCheckTargets, releaseApiKeyId: config.releaseApiKeyId },
);
