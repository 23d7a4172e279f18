import { now } from '../clock';
import { oneLine, RELEASE_KEY_MARK, withoutSecret } from './answer-judgement';
import { authorizerContextOf, releasePrincipal, unknownToken } from './check-identity';
import type { Invoke } from './invocation';
import { probeToSend, sunsetOf, type CheckProbe } from './probes';
import { successWalk, type Send, type Verdict, type WalkFunction, type WalkSetting } from './success-walk';

/**
 * The check a new version passes before it takes any traffic: every probe it is given (./probes.ts:
 * the functions' declared probes, gathered from the table of functions), one at a time, each
 * judged on its own; then the walk through the success paths (./success-walk.ts: the release key
 * allowed, a create, a get of that pet, a listing that finds it), one step after the other. A
 * probe or step that does not answer by its deadline fails; so does one whose invocation fails, or
 * whose judgement throws. The check never throws and always ends by its deadline, whatever the
 * invocations do, so that its hook always reports.
 */

/** A function gets 10 s (infra/functions.ts); a new version's first invocation also starts it (its cold start), and a throttled invocation is tried again. */
export const PROBE_DEADLINE_MS = 25_000;
/**
 * The whole check: the probes one at a time, the walk (its listing may wait 10.9 s for its pet),
 * with room for invocations throttled on a small concurrency quota; inside the hook's own timeout
 * (./hook-deadlines.ts), with time left to report.
 */
export const CHECK_DEADLINE_MS = 90_000;
/**
 * Invocations running at once: one. A release runs one check per function it moves (each
 * deployment's hook), all at the same moment, on the account's concurrency that live traffic uses
 * too: five hooks and one invocation each need 10 executions, what a new account may have in all
 * (docs/release-check.md#a-new-accounts-concurrency); a throttled invocation waits and is tried
 * again (functions/releaseCheck/handler.ts). The walk's steps run one at a time too, after the probes.
 */
export const PROBES_AT_ONCE = 1;

export interface ReleaseCheckOptions {
  /** The release key (its value: the hook reads it from API Gateway, the drill makes one). */
  readonly releaseKey: string;
  /** When API Gateway made it (ms), which the hook reads with it: a new key may not be in the registry yet (./success-walk.ts). */
  readonly releaseKeyCreatedAt?: number | undefined;
  /** The service's time at the start (default: now). */
  readonly at?: number;
  /** The authorizer probe's unknown token (default: a random one). */
  readonly token?: string;
  readonly probeDeadlineMs?: number;
  readonly deadlineMs?: number;
  /** The walk's waits (its defaults: ./success-walk.ts). */
  readonly waits?: Pick<WalkSetting, 'retryEveryMs' | 'listingWaitMs' | 'listingSettleWaitMs'>;
}

export type ProbeResult<Name extends string = string> =
  /** `note`: what a step that passed did not judge, and why (a new release key's Allow). */
  | { readonly name: string; readonly functionName: Name; readonly passed: true; readonly note?: string }
  | { readonly name: string; readonly functionName: Name; readonly passed: false; readonly reason: string };

export interface ReleaseCheckResult<Name extends string = string> {
  readonly passed: boolean;
  /** The probes in their order, then the walk's steps in theirs. */
  readonly probes: readonly ProbeResult<Name>[];
}

/** A probe or a step of the walk, as the check runs it. */
interface Runnable<Name extends string> {
  readonly name: string;
  readonly functionName: Name;
  /** Added to the probe's deadline (a step that waits). */
  readonly extraMs: number;
  run(send: Send, signal: AbortSignal): Promise<Verdict>;
}

/** Sends each of `declared` (in its order) to the function it names, through `invoke`, then walks the success paths. */
export async function runReleaseCheck<Name extends string>(
  declared: readonly CheckProbe<Name>[],
  invoke: Invoke<NoInfer<Name> | WalkFunction>,
  options: ReleaseCheckOptions,
): Promise<ReleaseCheckResult<Name | WalkFunction>> {
  const at = options.at ?? now();
  const principal = releasePrincipal(options.releaseKey);
  const sending = { at, token: options.token ?? unknownToken(), caller: authorizerContextOf(principal) };
  const probes: Runnable<Name>[] = declared.map((declaredProbe) => {
    const probe = probeToSend(declaredProbe, sending);
    return {
      name: probe.name,
      functionName: probe.functionName,
      extraMs: 0,
      run: async (send) => probe.judge(await send(probe.event)),
    };
  });
  const getPetGoneFrom = sunsetOf(declared, 'getPet');
  const walk = successWalk({
    releaseKey: options.releaseKey,
    releaseKeyCreatedAt: options.releaseKeyCreatedAt,
    principal,
    at,
    getPetGoneFrom,
    ...options.waits,
  });
  // Every outcome and invocation error loses the key before anything judges or quotes it.
  const keyless: Invoke<Name | WalkFunction> = async (functionName, event, signal) => {
    try {
      return withoutSecret(await invoke(functionName, event, signal), options.releaseKey);
    } catch (error) {
      // A new error (a DOMException's message cannot be set), its name kept, without the stack that quoted the key.
      if (!(error instanceof Error) || !error.message.includes(options.releaseKey)) throw error;
      throw Object.assign(new Error(error.message.replaceAll(options.releaseKey, RELEASE_KEY_MARK)), {
        name: error.name,
        stack: undefined,
      });
    }
  };
  const probeDeadlineMs = options.probeDeadlineMs ?? PROBE_DEADLINE_MS;
  const checkDeadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  const endsAt = performance.now() + checkDeadlineMs;
  const checkLate = `no answer by the check's deadline (${checkDeadlineMs / 1000} s)`;
  // Set once a probe is cut at the check's deadline: a timer can fire a few milliseconds before
  // performance.now() reaches endsAt (a busy event loop's clock is read late), so the time left
  // alone would let a lane start another probe with a millisecond or two to live.
  let deadlinePassed = false;
  const runInTime = async (runnable: Runnable<Name | WalkFunction>): Promise<ProbeResult<Name | WalkFunction>> => {
    const { name, functionName } = runnable;
    const left = Math.floor(endsAt - performance.now());
    if (deadlinePassed || left <= 0)
      return { name, functionName, passed: false, reason: "not run: the check's deadline had passed" };
    const ownMs = probeDeadlineMs + runnable.extraMs;
    const result =
      left < ownMs
        ? await runOne(keyless, runnable, left, checkLate)
        : await runOne(keyless, runnable, ownMs, `no answer within ${ownMs / 1000} s`);
    if (!result.passed && result.reason === checkLate) deadlinePassed = true;
    return result;
  };

  const results: ProbeResult<Name | WalkFunction>[] = new Array(probes.length);
  let next = 0;
  // Each lane takes the next probe when its last one ends; a probe's deadline never passes the check's.
  const lane = async (): Promise<void> => {
    while (next < probes.length) {
      const index = next;
      next += 1;
      results[index] = await runInTime(probes[index] as Runnable<Name>);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBES_AT_ONCE, probes.length) }, lane));

  // The walk: each step reads what the one before it found, so the first that fails ends it.
  let notRun: string | undefined;
  for (const step of walk) {
    const result: ProbeResult<Name | WalkFunction> =
      notRun === undefined
        ? await runInTime(step)
        : { name: step.name, functionName: step.functionName, passed: false, reason: notRun };
    if (!result.passed && notRun === undefined)
      notRun = result.reason.startsWith('not run:')
        ? result.reason
        : `not run: the walk's ${step.functionName} step failed`;
    results.push(result);
  }
  // No reason may hold the key, whatever a function's error message quoted (a second net: the outcomes lost it before).
  const scrubbed = results.map((result) =>
    result.passed || !result.reason.includes(options.releaseKey)
      ? result
      : { ...result, reason: result.reason.replaceAll(options.releaseKey, RELEASE_KEY_MARK) },
  );
  return { passed: scrubbed.every((result) => result.passed), probes: scrubbed };
}

/** A probe's or a step's invocation that failed (no outcome at all), told apart from its judgement's error. */
class InvocationFailure {
  constructor(readonly error: unknown) {}
}

async function runOne<Name extends string>(
  invoke: Invoke<Name>,
  runnable: Runnable<Name>,
  deadlineMs: number,
  lateReason: string,
): Promise<ProbeResult<Name>> {
  const { name, functionName } = runnable;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`The probe's deadline (${deadlineMs} ms) passed.`, 'TimeoutError'));
      resolve(lateReason);
    }, deadlineMs);
  });
  const send: Send = async (event) => {
    try {
      return await invoke(functionName, event, controller.signal);
    } catch (error) {
      throw new InvocationFailure(error);
    }
  };
  const answered = (async (): Promise<Verdict> => {
    try {
      return await runnable.run(send, controller.signal);
    } catch (error) {
      if (error instanceof InvocationFailure) return `its invocation failed: ${describe(error.error)}`;
      return `its answer could not be judged: ${describe(error)}`;
    }
  })();
  try {
    const verdict = await Promise.race([answered, late]);
    if (verdict === undefined) return { name, functionName, passed: true };
    return typeof verdict === 'string'
      ? { name, functionName, passed: false, reason: verdict }
      : { name, functionName, passed: true, note: verdict.note };
  } finally {
    clearTimeout(timer);
  }
}

/** An error's name and message, in one line. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${oneLine(error.message, 200)}` : oneLine(String(error), 200);
}
