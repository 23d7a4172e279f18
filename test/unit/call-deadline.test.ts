import { describe, expect, it } from 'vitest';
import { FUNCTION_SETTINGS } from '../../infra/functions';
import { TimedCallDeadline } from '../../shared/dynamodb/call-deadline';
import { AWS_CALL_BOUNDS, worstCallMs } from '../../shared/dynamodb/client';

const WORST_CALL_MS = worstCallMs(AWS_CALL_BOUNDS);

describe('the deadline of a request\'s DynamoDB calls', () => {
  it('lets one call with all its SDK attempts end inside the deployed function\'s time, with the 0.5 s margin', () => {
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
  });
});
