import { afterEach, describe, expect, it, vi } from 'vitest';
import { FUNCTION_SETTINGS } from '../../../../infra/functions';
import { deadlineBeforeTimeout, TimedCallDeadline } from '../../../../shared/dynamodb/call-deadline';
import { AWS_CALL_BOUNDS, worstCallMs } from '../../../../shared/dynamodb/client';

const WORST_CALL_MS = worstCallMs(AWS_CALL_BOUNDS);

describe("the deadline of a request's DynamoDB calls", () => {
  it("lets one call with all its SDK attempts end inside the deployed function's time, with the 0.5 s margin", () => {
    expect(WORST_CALL_MS).toBe(7_500);
    expect(WORST_CALL_MS + 500).toBeLessThanOrEqual(FUNCTION_SETTINGS.timeout.toMilliseconds());
  });

  it('gives no signal to a call that starts with time for its worst case', () => {
    let now = 1_000_000;
    const deadline = new TimedCallDeadline(now + WORST_CALL_MS, WORST_CALL_MS, () => now);
    expect(deadline.signalForCall()).toBeUndefined();
    now += 1;
    const signal = deadline.signalForCall();
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(deadline.signalForCall()).toBe(signal); // one signal for the rest of the request
    deadline.clear();
  });

  it('aborts the calls at the deadline, as a TimeoutError', async () => {
    const deadline = new TimedCallDeadline(Date.now() + 20, WORST_CALL_MS);
    const signal = deadline.signalForCall() as AbortSignal;
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' });
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).message).toBe('The operation ran into the function timeout.');
  });
});

describe('the deadline, on a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts at the deadline, not a millisecond before, with a DOMException named TimeoutError that says why', () => {
    vi.useFakeTimers();
    const deadline = new TimedCallDeadline(Date.now() + 20, WORST_CALL_MS);
    const signal = deadline.signalForCall() as AbortSignal;
    vi.advanceTimersByTime(19);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
    expect((signal.reason as DOMException).message).toBe('The operation ran into the function timeout.');
  });

  it('aborts nothing once cleared: clear() cancels the timer of a request that ended in time', () => {
    vi.useFakeTimers();
    const deadline = new TimedCallDeadline(Date.now() + 20, WORST_CALL_MS);
    const signal = deadline.signalForCall() as AbortSignal;
    expect(vi.getTimerCount()).toBe(1);
    deadline.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(WORST_CALL_MS);
    expect(signal.aborted).toBe(false);
  });

  it('has nothing to clear when it made no signal', () => {
    vi.useFakeTimers();
    const deadline = new TimedCallDeadline(Date.now() + WORST_CALL_MS, WORST_CALL_MS);
    expect(deadline.signalForCall()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    expect(() => deadline.clear()).not.toThrow();
  });

  it("is the Lambda context's remaining time less 0.5 s", () => {
    vi.useFakeTimers();
    const deadline = deadlineBeforeTimeout({ getRemainingTimeInMillis: () => 10_000 }) as TimedCallDeadline;
    expect(deadline).toBeInstanceOf(TimedCallDeadline);
    expect(deadline.signalForCall(9_500)).toBeUndefined(); // a call that can take 9.5 s still ends in time
    const signal = deadline.signalForCall(9_501) as AbortSignal;
    expect(signal).toBeInstanceOf(AbortSignal);
    vi.advanceTimersByTime(9_499);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
  });

  it('is none without a Lambda context, or with one that cannot tell the remaining time', () => {
    expect(deadlineBeforeTimeout(undefined)).toBeUndefined();
    expect(deadlineBeforeTimeout({})).toBeUndefined();
  });
});
