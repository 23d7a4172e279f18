import { afterEach, describe, expect, it } from 'vitest';
import { setClock } from '../../shared/clock';
import { ApiError, InvalidRequestError, ServiceUnavailableError } from '../../shared/errors';
import { CursorCodec } from '../../shared/pets/cursor';
import { CursorSecrets, environmentCursorKeys, KEYS_MAX_AGE_MS, type CursorKeys, type CursorKeySource } from '../../shared/pets/cursor-secrets';

/**
 * Without Secrets Manager (npm start, the tests), the keys come from CURSOR_SECRET and the
 * optional CURSOR_SECRET_PREVIOUS, by the same rule: signed with the first, accepted with either.
 * (The rule against Secrets Manager, rotation and faults: test/http/cursor-secret-rotation.test.ts
 * and test/integration/cursor-secret-faults.test.ts.)
 */
const position = { afterId: 5, status: undefined };

describe('the cursor keys of the environment', () => {
  it('sign with CURSOR_SECRET and accept CURSOR_SECRET_PREVIOUS too, nothing else', async () => {
    const cursors = new CursorSecrets(environmentCursorKeys({ cursorSecret: 'now', cursorSecretPrevious: 'before' }));
    const signed = await cursors.encode(position);
    expect(new CursorCodec('now').read(signed)).toEqual({ kind: 'valid', position });
    expect(await cursors.decode(new CursorCodec('before').encode(position), undefined)).toEqual(position);
    await expect(cursors.decode(new CursorCodec('elsewhere').encode(position), undefined)).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('without CURSOR_SECRET_PREVIOUS accept CURSOR_SECRET alone, as before it existed', async () => {
    const cursors = new CursorSecrets(environmentCursorKeys({ cursorSecret: 'now', cursorSecretPrevious: undefined }));
    expect(await cursors.decode(new CursorCodec('now').encode(position), undefined)).toEqual(position);
    await expect(cursors.decode(new CursorCodec('before').encode(position), undefined)).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('cannot sign without CURSOR_SECRET (a deployment mistake: a 500, not a client error)', async () => {
    const cursors = new CursorSecrets(environmentCursorKeys({ cursorSecret: undefined, cursorSecretPrevious: undefined }));
    const failure = await cursors.encode(position).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/CURSOR_SECRET/);
    expect(failure).not.toBeInstanceOf(ApiError);
  });
});

/** A source of keys the test answers by hand: each read waits for the test to resolve or reject it. */
function manualSource(): CursorKeySource & { reads: { resolve: (keys: CursorKeys) => void; reject: (error: unknown) => void }[] } {
  const reads: { resolve: (keys: CursorKeys) => void; reject: (error: unknown) => void }[] = [];
  return { worstReadMs: 4_000, reads, read: () => new Promise<CursorKeys>((resolve, reject) => reads.push({ resolve, reject })) };
}
const unavailable = () => new ServiceUnavailableError(new Error('Secrets Manager is throttling'));
/** A request whose deadline has already passed. */
const pastDeadline = { signalForCall: () => AbortSignal.abort(new Error('the request\'s deadline')) };

describe('the rule for reading the keys again', () => {
  let nowMs = 1_800_000_000_000;
  afterEach(() => setClock(() => Date.now()));
  const useClock = () => setClock(() => nowMs);

  it('answers a cursor no known key signed with 400 even when the keys cannot be read again: a client\'s mistake is no outage', async () => {
    useClock();
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const first = cursors.encode(position);
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    await first;
    const forged = new CursorCodec('elsewhere').encode(position);
    const answer = cursors.decode(forged, undefined);
    // The one read a cursor from an unknown key may cause, and it fails.
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.reject(unavailable());
    await expect(answer).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('serves with keys past their age at once, reading them again in the background, and signs with the new ones once read', async () => {
    useClock();
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const first = cursors.encode(position);
    source.reads[0]?.resolve({ current: 'before', previous: undefined });
    await first;
    nowMs += KEYS_MAX_AGE_MS;
    // The read for their age has not answered (Secrets Manager slow or hanging): no request waits for it.
    const meanwhile = await cursors.encode(position);
    expect(new CursorCodec('before').read(meanwhile).kind).toBe('valid');
    expect(await cursors.decode(meanwhile, undefined)).toEqual(position);
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.resolve({ current: 'after', previous: 'before' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(new CursorCodec('after').read(await cursors.encode(position)).kind).toBe('valid');
    expect(await cursors.decode(meanwhile, undefined)).toEqual(position);
  });

  it('keeps the keys it has when reading them again fails, and leaves no rejection unhandled', async () => {
    useClock();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const source = manualSource();
      const cursors = new CursorSecrets(source);
      const first = cursors.encode(position);
      source.reads[0]?.resolve({ current: 'now', previous: undefined });
      await first;
      nowMs += KEYS_MAX_AGE_MS;
      cursors.prepare(); // a read in the background that nobody waits for
      source.reads[1]?.reject(unavailable());
      expect(new CursorCodec('now').read(await cursors.encode(position)).kind).toBe('valid');

      // A container without keys, whose request's deadline has passed before its read answers.
      const cold = manualSource();
      const late = new CursorSecrets(cold);
      await expect(late.encode(position, pastDeadline)).rejects.toBeInstanceOf(ServiceUnavailableError);
      cold.reads[0]?.reject(unavailable());
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
