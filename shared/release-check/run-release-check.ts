import { now } from '../clock';
import { oneLine } from './answer-judgement';
import { unknownToken } from './check-identity';
import type { InvocationOutcome, Invoke } from './invocation';
import { probeToSend, type CheckProbe, type Probe } from './probes';

/**
 * The check a new version passes before it takes any traffic: every probe it is given (./probes.ts:
 * the functions' declared probes, gathered from the table of functions), two at a time, each
 * judged on its own. A probe that does not answer by its deadline fails; so does one whose
 * invocation fails, or whose judgement throws. The check never throws and always ends by its
 * deadline, whatever the invocations do, so that its hook always reports.
 */

/** A function gets 10 s (infra/functions.ts); a new version's first invocation also starts it (its cold start), and a throttled invocation is tried again. */
export const PROBE_DEADLINE_MS = 25_000;
/** The whole check: well inside the hook's own timeout, with time left to report. */
export const CHECK_DEADLINE_MS = 45_000;
/**
 * Probes running at once. A release runs one check per function it moves (each deployment's hook),
 * all at the same moment, on the account's concurrency that live traffic uses too: five checks of
 * two probes each, and the five hooks, need 15 executions, not 45 (docs/release-check.md).
 */
export const PROBES_AT_ONCE = 2;

export interface ReleaseCheckOptions {
  /** The service's time at the start (default: now). */
  readonly at?: number;
  /** The authorizer probe's unknown token (default: a random one). */
  readonly token?: string;
  readonly probeDeadlineMs?: number;
  readonly deadlineMs?: number;
}

export type ProbeResult<Name extends string = string> =
  | { readonly name: string; readonly functionName: Name; readonly passed: true }
  | { readonly name: string; readonly functionName: Name; readonly passed: false; readonly reason: string };

export interface ReleaseCheckResult<Name extends string = string> {
  readonly passed: boolean;
  /** In the probes' order. */
  readonly probes: readonly ProbeResult<Name>[];
}

/** Sends each of `declared` (in its order) to the function it names, through `invoke`. */
export async function runReleaseCheck<Name extends string>(declared: readonly CheckProbe<Name>[], invoke: Invoke<Name>, options: ReleaseCheckOptions = {}): Promise<ReleaseCheckResult<Name>> {
  const sending = { at: options.at ?? now(), token: options.token ?? unknownToken() };
  const probes = declared.map((probe) => probeToSend(probe, sending));
  const probeDeadlineMs = options.probeDeadlineMs ?? PROBE_DEADLINE_MS;
  const checkDeadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  const endsAt = performance.now() + checkDeadlineMs;
  const results: ProbeResult<Name>[] = new Array(probes.length);
  let next = 0;
  const checkLate = `no answer by the check's deadline (${checkDeadlineMs / 1000} s)`;
  // Set once a probe is cut at the check's deadline: a timer can fire a few milliseconds before
  // performance.now() reaches endsAt (a busy event loop's clock is read late), so the time left
  // alone would let a lane start another probe with a millisecond or two to live.
  let deadlinePassed = false;
  // Each lane takes the next probe when its last one ends; a probe's deadline never passes the check's.
  const lane = async (): Promise<void> => {
    while (next < probes.length) {
      const index = next;
      next += 1;
      const probe = probes[index] as Probe<Name>;
      const left = Math.floor(endsAt - performance.now());
      if (deadlinePassed || left <= 0) {
        results[index] = { name: probe.name, functionName: probe.functionName, passed: false, reason: 'not run: the check\'s deadline had passed' };
        continue;
      }
      const result = left < probeDeadlineMs ? await runProbe(invoke, probe, left, checkLate) : await runProbe(invoke, probe, probeDeadlineMs, `no answer within ${probeDeadlineMs / 1000} s`);
      if (!result.passed && result.reason === checkLate) deadlinePassed = true;
      results[index] = result;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBES_AT_ONCE, probes.length) }, lane));
  return { passed: results.every((result) => result.passed), probes: results };
}

async function runProbe<Name extends string>(invoke: Invoke<Name>, probe: Probe<Name>, deadlineMs: number, lateReason: string): Promise<ProbeResult<Name>> {
  const { name, functionName } = probe;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`The probe's deadline (${deadlineMs} ms) passed.`, 'TimeoutError'));
      resolve(lateReason);
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
