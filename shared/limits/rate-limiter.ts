import { KeySuspendedError, RateLimitedError, type ApiError } from '../errors';
import type { CallDeadline } from '../dynamodb/call-deadline';
import type { RateCounterStore } from './counter-store';
import type { RateLimits } from './plans';
import { windowsAt, type Windows } from './windows';

/**
 * What a client is told about its limits: the window closest to running out (the one with
 * fewer requests left; on a tie, the one that resets later), and both windows' policies.
 */
export interface RateLimitStatus {
  readonly limits: RateLimits;
  readonly window: 'minute' | 'day';
  readonly limit: number;
  readonly remaining: number;
  /** When that window resets, in ms since the epoch. */
  readonly resetAt: number;
  readonly nowMs: number;
}

export interface RateLimitDecision {
  readonly status: RateLimitStatus;
  /** Set when the request is refused. */
  readonly refusal: ApiError | undefined;
}

/** Suspensions remembered per container; the oldest go first past this many. */
export const MAX_REMEMBERED_SUSPENSIONS = 10_000;

/** The oldest arrival time a request can have once a function counts it (API Gateway's 29 s, and some). */
const MAX_ARRIVAL_AGE_MS = 30_000;

export class RateLimiter {
  /** Subjects this container knows to be suspended, and until when (ms since the epoch). */
  readonly #suspendedUntil = new Map<string, number>();

  constructor(
    private readonly store: RateCounterStore,
    private readonly clock: () => number,
  ) {}

  /**
   * The refusal of a subject this container already knows to be suspended, decided without
   * DynamoDB: a suspension only ever ends at its time, so until then nothing need be asked (or
   * done) for that subject. Undefined when the container knows of none.
   */
  knownSuspension(subject: string, limits: RateLimits): RateLimitDecision | undefined {
    // 0: none known.
    const until = this.#suspendedUntil.get(subject) ?? 0;
    const nowMs = this.clock();
    if (until > nowMs) return suspended(limits, until, nowMs);
    this.#suspendedUntil.delete(subject);
    return undefined;
  }

  /**
   * Counts one request of `subject` (a key id or a client address) against `limits`, by
   * `deadline`. `arrivedAt`: the gateway's arrival time of the request (`requestTimeEpoch`), by
   * which the suspension rule counts refusals; now when unknown, never later than now.
   */
  async check(
    subject: string,
    limits: RateLimits,
    deadline?: CallDeadline,
    arrivedAt?: number,
  ): Promise<RateLimitDecision> {
    const known = this.knownSuspension(subject, limits);
    if (known !== undefined) return known;
    const nowMs = this.clock();
    const windows = windowsAt(nowMs);
    // Within [now - 30 s, now]: API Gateway gives up on a request after 29 s, so an older time is
    // not a real arrival (a direct invocation, a test harness) and must not open a streak long closed.
    // (Number.isFinite is false for undefined too.)
    const arrival = Number.isFinite(arrivedAt)
      ? Math.min(nowMs, Math.max(nowMs - MAX_ARRIVAL_AGE_MS, arrivedAt as number))
      : nowMs;
    const admission = await this.store.admit(subject, limits, nowMs, { deadline, arrivedAt: arrival });
    switch (admission.outcome) {
      case 'admitted':
        return { status: closestToRunningOut(limits, windows, admission, nowMs), refusal: undefined };
      case 'refused': {
        const { window } = admission;
        const resetAt = windows[window].resetAt;
        const status: RateLimitStatus = {
          limits,
          window,
          limit: limitOf(limits, window),
          remaining: 0,
          resetAt,
          nowMs,
        };
        return { status, refusal: new RateLimitedError(secondsUntil(resetAt, nowMs), window) };
      }
      case 'suspended':
        this.#remember(subject, admission.until);
        return suspended(limits, admission.until, nowMs);
    }
  }

  #remember(subject: string, until: number): void {
    if (this.#suspendedUntil.size >= MAX_REMEMBERED_SUSPENSIONS)
      this.#suspendedUntil.delete(this.#suspendedUntil.keys().next().value as string);
    this.#suspendedUntil.set(subject, until);
  }
}

function suspended(limits: RateLimits, until: number, nowMs: number): RateLimitDecision {
  const status: RateLimitStatus = {
    limits,
    window: 'minute',
    limit: limits.perMinute,
    remaining: 0,
    resetAt: until,
    nowMs,
  };
  return { status, refusal: new KeySuspendedError(secondsUntil(until, nowMs)) };
}

/** What to say when the counts could not be read (the request then fails): nothing left until the next minute. */
export function unknownStatus(limits: RateLimits, nowMs: number): RateLimitStatus {
  return {
    limits,
    window: 'minute',
    limit: limits.perMinute,
    remaining: 0,
    resetAt: windowsAt(nowMs).minute.resetAt,
    nowMs,
  };
}

/** The admitted request's status: the window with the fewer requests left after its `counts`. */
function closestToRunningOut(
  limits: RateLimits,
  windows: Windows,
  counts: { readonly minuteCount: number; readonly dayCount: number },
  nowMs: number,
): RateLimitStatus {
  const minuteLeft = Math.max(0, limits.perMinute - counts.minuteCount);
  const dayLeft = Math.max(0, limits.perDay - counts.dayCount);
  const window = dayLeft <= minuteLeft ? 'day' : 'minute';
  return {
    limits,
    window,
    limit: limitOf(limits, window),
    remaining: window === 'day' ? dayLeft : minuteLeft,
    resetAt: windows[window].resetAt,
    nowMs,
  };
}

const limitOf = (limits: RateLimits, window: 'minute' | 'day'): number =>
  window === 'minute' ? limits.perMinute : limits.perDay;

/** Whole seconds, at least 1 (RFC 9110 delta-seconds). */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
