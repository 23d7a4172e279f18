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

export class RateLimiter {
  constructor(
    private readonly store: RateCounterStore,
    private readonly clock: () => number,
  ) {}

  /** Counts one request of `subject` (a key id or a client address) against `limits`, by `deadline`. */
  async check(subject: string, limits: RateLimits, deadline?: CallDeadline): Promise<RateLimitDecision> {
    const nowMs = this.clock();
    const windows = windowsAt(nowMs);
    const admission = await this.store.admit(subject, limits, nowMs, deadline);
    const minuteLeft = Math.max(0, limits.perMinute - admission.minuteCount);
    const dayLeft = Math.max(0, limits.perDay - admission.dayCount);
    switch (admission.outcome) {
      case 'admitted':
        return { status: closestToRunningOut(limits, windows, minuteLeft, dayLeft, nowMs), refusal: undefined };
      case 'refused': {
        // The window that refused; when both are used up, the one that frees up last.
        const window = dayLeft === 0 ? 'day' : 'minute';
        const resetAt = windows[window].resetAt;
        const status: RateLimitStatus = { limits, window, limit: limitOf(limits, window), remaining: 0, resetAt, nowMs };
        return { status, refusal: new RateLimitedError(secondsUntil(resetAt, nowMs), window) };
      }
      case 'suspended': {
        const status: RateLimitStatus = { limits, window: 'minute', limit: limits.perMinute, remaining: 0, resetAt: admission.until, nowMs };
        return { status, refusal: new KeySuspendedError(secondsUntil(admission.until, nowMs)) };
      }
    }
  }
}

/** What to say when the counts could not be read (the request then fails): nothing left until the next minute. */
export function unknownStatus(limits: RateLimits, nowMs: number): RateLimitStatus {
  return { limits, window: 'minute', limit: limits.perMinute, remaining: 0, resetAt: windowsAt(nowMs).minute.resetAt, nowMs };
}

function closestToRunningOut(limits: RateLimits, windows: Windows, minuteLeft: number, dayLeft: number, nowMs: number): RateLimitStatus {
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

const limitOf = (limits: RateLimits, window: 'minute' | 'day'): number => (window === 'minute' ? limits.perMinute : limits.perDay);

/** Whole seconds, at least 1 (RFC 9110 delta-seconds). */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
