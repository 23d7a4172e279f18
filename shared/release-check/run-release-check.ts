import { now } from '../clock';
import { oneLine } from './answer-judgement';
import { unknownToken } from './check-identity';
import type { InvocationOutcome, Invoke } from './invocation';
import { releaseProbes, type Probe } from './probes';
import type { ReleasedFunction } from './released-functions';

/**
 * The check a new version passes before it takes any traffic: every probe (./probes.ts) at once,
 * each judged on its own. A probe that does not answer by its deadline fails; so does one whose
 * invocation fails, or whose judgement throws. The check never throws and always ends by its
 * deadline, whatever the invocations do, so that its hook always reports.
 */

/** A function gets 10 s (infra/functions.ts); a new version's first invocation also starts it (its cold start), and a throttled invocation is tried again. */
export const PROBE_DEADLINE_MS = 25_000;
/** The whole check: well inside the hook's own timeout, with time left to report. */
export const CHECK_DEADLINE_MS = 45_000;

export interface ReleaseCheckOptions {
  /** The service's time at the start (default: now). */
  readonly at?: number;
  /** The authorizer probe's unknown token (default: a random one). */
  readonly token?: string;
  readonly probeDeadlineMs?: number;
  readonly deadlineMs?: number;
}

export type ProbeResult =
  | { readonly name: string; readonly functionName: ReleasedFunction; readonly passed: true }
  | { readonly name: string; readonly functionName: ReleasedFunction; readonly passed: false; readonly reason: string };

export interface ReleaseCheckResult {
  readonly passed: boolean;
  /** In the probes' order. */
  readonly probes: readonly ProbeResult[];
}

export async function runReleaseCheck(invoke: Invoke, options: ReleaseCheckOptions = {}): Promise<ReleaseCheckResult> {
  const probes = releaseProbes({ at: options.at ?? now(), token: options.token ?? unknownToken() });
  // They all start now: each one's deadline is the check's too.
  const deadlineMs = Math.min(options.probeDeadlineMs ?? PROBE_DEADLINE_MS, options.deadlineMs ?? CHECK_DEADLINE_MS);
  const results = await Promise.all(probes.map((probe) => runProbe(invoke, probe, deadlineMs)));
  return { passed: results.every((result) => result.passed), probes: results };
}

async function runProbe(invoke: Invoke, probe: Probe, deadlineMs: number): Promise<ProbeResult> {
  const { name, functionName } = probe;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`The probe's deadline (${deadlineMs} ms) passed.`, 'TimeoutError'));
      resolve(`no answer within ${deadlineMs / 1000} s`);
    }, deadlineMs);
  });
  const answered = (async () => {
    let outcome: InvocationOutcome;
    try {
      outcome = await invoke(functionName, probe.event, controller.signal);
    } catch (error) {
      return `its invocation failed: ${describe(error)}`;
    }
    try {
      return probe.judge(outcome);
    } catch (error) {
      return `its answer could not be judged: ${describe(error)}`;
    }
  })();
  try {
    const reason = await Promise.race([answered, late]);
    return reason === undefined ? { name, functionName, passed: true } : { name, functionName, passed: false, reason };
  } finally {
    clearTimeout(timer);
  }
}

/** An error's name and message, in one line. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${oneLine(error.message, 200)}` : oneLine(String(error), 200);
}
