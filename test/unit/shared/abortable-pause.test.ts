import { describe, expect, it, vi } from 'vitest';
import { pause } from '../../../shared/abortable-pause';

/** A wait a deadline may cut short (shared/abortable-pause.ts): the keyed create's pause before a redraw, the release check's waits. */
describe('pause', () => {
  it('resolves after its time when nothing aborts it', async () => {
    const began = performance.now();
    await pause(60, new AbortController().signal);
    expect(performance.now() - began).toBeGreaterThanOrEqual(55);
  });

  it('resolves at once on a signal already aborted, and when the signal aborts meanwhile (never rejects)', async () => {
    const began = performance.now();
    await expect(pause(5_000, AbortSignal.abort(new Error('over')))).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = pause(5_000, controller.signal);
    setTimeout(() => controller.abort(new Error('the deadline')), 20);
    await expect(waiting).resolves.toBeUndefined();
    expect(performance.now() - began).toBeLessThan(1_000);
  });

  it('leaves no timer behind once aborted, and listens for one abort only', async () => {
    const controller = new AbortController();
    const listening = vi.spyOn(controller.signal, 'addEventListener');
    const waiting = pause(60_000, controller.signal);
    controller.abort();
    await waiting;
    expect(listening.mock.calls.map(([type, , options]) => [type, options])).toEqual([['abort', { once: true }]]);
    // A timer left running would hold this process for a minute: the test file ends at once.
  });
});
