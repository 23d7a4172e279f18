import { APIGatewayClient, GetApiKeyCommand, type GetApiKeyCommandOutput } from '@aws-sdk/client-api-gateway';
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { config } from '../../shared/config';
import { loggedError, writeLog } from '../../shared/log';
import { oneLine } from '../../shared/release-check/answer-judgement';
import { pause } from '../../shared/release-check/abortable-pause';
import { HOOK_MARGIN_MS, KEY_READ_DEADLINE_MS, REPORT_DEADLINE_MS } from '../../shared/release-check/hook-deadlines';
import type { InvocationOutcome, Invoke } from '../../shared/release-check/invocation';
import { CHECK_DEADLINE_MS, runReleaseCheck, type ProbeResult, type ReleaseCheckResult } from '../../shared/release-check/run-release-check';
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
  readonly apiGateway: { send(command: GetApiKeyCommand, options: { abortSignal: AbortSignal }): Promise<GetApiKeyCommandOutput> };
  readonly lambda: { send(command: InvokeCommand, options: { abortSignal: AbortSignal }): Promise<InvokeCommandOutput> };
  readonly codeDeploy: { send(command: PutLifecycleEventHookExecutionStatusCommand, options: { abortSignal: AbortSignal }): Promise<unknown> };
}

export { KEY_READ_DEADLINE_MS, REPORT_DEADLINE_MS };

/** What the stack tells the hook: the versions to check (RELEASE_CHECK_TARGETS) and the release key's API Gateway id (RELEASE_API_KEY_ID); the deadlines, shorter in tests. */
export interface HookSettings {
  readonly targetsJson: string | undefined;
  readonly releaseApiKeyId: string | undefined;
  readonly checkDeadlineMs?: number;
  readonly keyReadDeadlineMs?: number;
}

/** Between two tries of the release key's read refused for want of the right (IAM applying it). */
export const KEY_READ_RETRY_MS = 2_000;

export function releaseCheckHook(clients: HookClients, settings: HookSettings) {
  return async (event: LifecycleHookEvent, context?: { getRemainingTimeInMillis(): number }): Promise<void> => {
    const startedAt = performance.now();
    const deploymentId = event?.DeploymentId;
    const lifecycleEventHookExecutionId = event?.LifecycleEventHookExecutionId;
    if (typeof deploymentId !== 'string' || typeof lifecycleEventHookExecutionId !== 'string') {
      writeLog({ level: 'error', msg: 'release check', reason: 'not invoked by CodeDeploy: no DeploymentId and LifecycleEventHookExecutionId to report to' });
      throw new Error('The release check runs as a CodeDeploy lifecycle hook only.');
    }
    const targets = readReleaseTargets(settings.targetsJson);
    let result: ReleaseCheckResult<ReleasedFunction> | undefined;
    let problem: string | undefined;
    const releaseKey = typeof targets === 'string' ? undefined : await readReleaseKey(clients.apiGateway, settings.releaseApiKeyId, settings.keyReadDeadlineMs ?? KEY_READ_DEADLINE_MS);
    if (typeof targets === 'string') problem = targets;
    else if (releaseKey === undefined || !releaseKey.ok) problem = releaseKey?.problem;
    else {
      try {
        const deadlineMs = checkDeadlineMs(settings.checkDeadlineMs, context);
        result = await runReleaseCheck(RELEASE_PROBES, invokeVersions(clients.lambda, targets), { releaseKey: releaseKey.value, releaseKeyCreatedAt: releaseKey.createdAt, deadlineMs });
      } catch (error) {
        // runReleaseCheck does not throw; should it, the release fails rather than go unchecked.
        problem = `the check failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    for (const probe of result?.probes ?? []) {
      if (probe.passed && probe.note !== undefined) writeLog({ level: 'warn', msg: 'release check step not judged', deploymentId, probe: probe.name, function: probe.functionName, note: probe.note });
    }
    const failed = result?.probes.filter((probe): probe is Extract<ProbeResult<ReleasedFunction>, { passed: false }> => !probe.passed) ?? [];
    for (const probe of failed) writeLog({ level: 'error', msg: 'release check probe failed', deploymentId, probe: probe.name, function: probe.functionName, reason: probe.reason });
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
      await clients.codeDeploy.send(new PutLifecycleEventHookExecutionStatusCommand({ deploymentId, lifecycleEventHookExecutionId, status }), {
        abortSignal: AbortSignal.timeout(REPORT_DEADLINE_MS),
      });
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
  if (typeof targets !== 'object' || targets === null || Array.isArray(targets)) return 'RELEASE_CHECK_TARGETS is not a JSON object';
  const given = targets as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !(RELEASED_FUNCTIONS as readonly string[]).includes(name));
  if (unknown.length > 0) return `RELEASE_CHECK_TARGETS names functions the check has no probe for: ${unknown.join(', ')}`;
  const missing = RELEASED_FUNCTIONS.filter((name) => given[name] === undefined);
  if (missing.length > 0) return `RELEASE_CHECK_TARGETS gives no version of ${missing.join(', ')}`;
  const unqualified = RELEASED_FUNCTIONS.filter((name) => typeof given[name] !== 'string' || !QUALIFIED_VERSION_ARN.test(given[name]));
  if (unqualified.length > 0) return `RELEASE_CHECK_TARGETS gives no qualified version ARN for ${unqualified.join(', ')}`;
  return given as Record<ReleasedFunction, string>;
}

/** Each version by number, for the log line. */
function versionsOf(targets: Readonly<Record<ReleasedFunction, string>>): Record<string, string> {
  return Object.fromEntries(RELEASED_FUNCTIONS.map((name) => [name, targets[name].slice(targets[name].lastIndexOf(':') + 1)]));
}

/**
 * The release key's value and when it was made, read from API Gateway as the check starts (the
 * stack never passes the value: it is a credential), or the one line that says why it could not be:
 * the check then fails. A refusal for want of the right is tried again until the deadline: the right
 * comes in the same stack update as its first use (../../shared/release-check/hook-deadlines.ts).
 */
async function readReleaseKey(
  apiGateway: HookClients['apiGateway'],
  apiKeyId: string | undefined,
  deadlineMs: number,
): Promise<{ ok: true; value: string; createdAt: number | undefined } | { ok: false; problem: string }> {
  if (apiKeyId === undefined) return { ok: false, problem: 'RELEASE_API_KEY_ID is not set' };
  const signal = AbortSignal.timeout(deadlineMs);
  for (;;) {
    try {
      const { value, enabled, createdDate } = await apiGateway.send(new GetApiKeyCommand({ apiKey: apiKeyId, includeValue: true }), { abortSignal: signal });
      if (typeof value !== 'string' || value === '') return { ok: false, problem: `the release key ${apiKeyId} came without its value` };
      if (enabled === false) return { ok: false, problem: `the release key ${apiKeyId} is disabled: enable it (docs/release-check.md)` };
      return { ok: true, value, createdAt: createdDate instanceof Date ? createdDate.getTime() : undefined };
    } catch (error) {
      if (error instanceof Error && error.name === 'AccessDeniedException' && !signal.aborted) {
        await pause(KEY_READ_RETRY_MS, signal);
        if (!signal.aborted) continue;
      }
      return { ok: false, problem: `the release key ${apiKeyId} could not be read: ${error instanceof Error ? `${error.name}: ${oneLine(error.message, 200)}` : 'unknown error'}` };
    }
  }
}

/** The check's deadline: its own, or less when the function has less time left than it and the report need (none left: every probe fails at once, and Failed is reported). */
function checkDeadlineMs(configured: number | undefined, context: { getRemainingTimeInMillis(): number } | undefined): number {
  const own = configured ?? CHECK_DEADLINE_MS;
  if (typeof context?.getRemainingTimeInMillis !== 'function') return own;
  return Math.max(0, Math.min(own, context.getRemainingTimeInMillis() - REPORT_DEADLINE_MS - HOOK_MARGIN_MS));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Waits between two tries of a throttled invocation: 0.25 s, doubling, at most 2 s; tried again
 * until the probe's deadline aborts it. Lambda throttles when the account's (or the function's)
 * concurrency is used up: on a new account's 10 executions, the five checks of a release and live
 * traffic may take them all for a moment (docs/release-check.md#a-new-accounts-concurrency).
 */
export const THROTTLED_RETRY_MS = { first: 250, most: 2_000 } as const;

/** Invokes the version of each function, synchronously, as API Gateway would; a function error is an outcome, not a failure. */
export function invokeVersions(lambda: HookClients['lambda'], targets: Readonly<Record<ReleasedFunction, string>>): Invoke<ReleasedFunction> {
  return async (functionName, event, signal): Promise<InvocationOutcome> => {
    const command = new InvokeCommand({ FunctionName: targets[functionName], InvocationType: 'RequestResponse', Payload: encoder.encode(JSON.stringify(event)) });
    let output: InvokeCommandOutput | undefined;
    for (let wait: number = THROTTLED_RETRY_MS.first; output === undefined; wait = Math.min(wait * 2, THROTTLED_RETRY_MS.most)) {
      try {
        output = await lambda.send(command, { abortSignal: signal });
      } catch (error) {
        if (!isThrottled(error) || signal.aborted) throw error;
        await pause(wait, signal);
      }
    }
    const text = output.Payload === undefined ? '' : decoder.decode(output.Payload);
    if (output.FunctionError !== undefined) {
      // Lambda's error payload: {"errorType":"Error","errorMessage":"Unauthorized","trace":[...]}.
      const error = parsedOrUndefined(text) as { errorType?: unknown; errorMessage?: unknown } | undefined;
      return {
        kind: 'functionError',
        errorType: typeof error?.errorType === 'string' ? error.errorType : output.FunctionError,
        errorMessage: typeof error?.errorMessage === 'string' ? error.errorMessage : '',
      };
    }
    return { kind: 'returned', payload: text === '' ? null : (JSON.parse(text) as unknown) };
  };
}

/** Lambda's throttle: the concurrency is used up (the SDK's own attempts too). */
const isThrottled = (error: unknown): boolean => error instanceof Error && error.name === 'TooManyRequestsException';

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// An invocation may last a function's timeout (10 s) and its cold start. The SDK's attempts, and
// invokeVersions' own waits when throttled (a release starts every function's check at once, and a
// new account's concurrency quota is small); the probe's deadline aborts whatever attempt is running.
const lambda = new LambdaClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 20_000, throwOnRequestTimeout: true } });
const codeDeploy = new CodeDeployClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } });

const apiGateway = new APIGatewayClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } });

export const handler = releaseCheckHook({ lambda, codeDeploy, apiGateway }, { targetsJson: config.releaseCheckTargets, releaseApiKeyId: config.releaseApiKeyId });
