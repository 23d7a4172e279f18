import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setClock } from '../../../../shared/clock';
import type { CallDeadline } from '../../../../shared/dynamodb/call-deadline';
import { ApiError, InvalidRequestError, ServiceUnavailableError } from '../../../../shared/errors';
import { loggedError, setLogSink } from '../../../../shared/log';
import { CursorCodec } from '../../../../shared/pets/cursor';
import {
  CursorSecrets,
  environmentCursorKeys,
  KEYS_MAX_AGE_MS,
  MIN_REREAD_INTERVAL_MS,
  RETRY_FAILED_READ_MS,
  type CursorKeys,
  type CursorKeySource,
} from '../../../../shared/pets/cursor-secrets';

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
    await expect(cursors.decode(new CursorCodec('elsewhere').encode(position), undefined)).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
  });

  it('without CURSOR_SECRET_PREVIOUS accept CURSOR_SECRET alone, as before it existed', async () => {
    const cursors = new CursorSecrets(environmentCursorKeys({ cursorSecret: 'now', cursorSecretPrevious: undefined }));
    expect(await cursors.decode(new CursorCodec('now').encode(position), undefined)).toEqual(position);
    await expect(cursors.decode(new CursorCodec('before').encode(position), undefined)).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
  });

  it('cannot sign without CURSOR_SECRET (a deployment mistake: a 500, not a client error)', async () => {
    const cursors = new CursorSecrets(
      environmentCursorKeys({ cursorSecret: undefined, cursorSecretPrevious: undefined }),
    );
    const failure = await cursors.encode(position).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/CURSOR_SECRET/);
    expect(failure).not.toBeInstanceOf(ApiError);
  });
});

/** A source of keys the test answers by hand: each read waits for the test to resolve or reject it. */
function manualSource(): CursorKeySource & {
  reads: { resolve: (keys: CursorKeys) => void; reject: (error: unknown) => void }[];
} {
  const reads: { resolve: (keys: CursorKeys) => void; reject: (error: unknown) => void }[] = [];
  return {
    worstReadMs: 4_000,
    reads,
    read: () => new Promise<CursorKeys>((resolve, reject) => reads.push({ resolve, reject })),
  };
}
const unavailable = () => new ServiceUnavailableError(new Error('Secrets Manager is throttling'));
/** A request whose deadline has already passed. */
const pastDeadline = { signalForCall: () => AbortSignal.abort(new Error("the request's deadline")) };

describe('the rule for reading the keys again', () => {
  let nowMs = 1_800_000_000_000;
  // Put back the clock there was (the suite's shared-modules project keeps modules between files).
  let restoreClock: (() => void) | undefined;
  afterEach(() => {
    restoreClock?.();
    restoreClock = undefined;
  });
  const useClock = () => {
    restoreClock ??= setClock(() => nowMs);
  };

  it("answers a cursor no known key signed with 400 even when the keys cannot be read again: a client's mistake is no outage", async () => {
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

/** Lets the callbacks of answered reads run, so that whoever waited for them has its answer. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** What a request has come to so far, without waiting for it: one that hangs fails the test at once instead of timing it out. */
function watch<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(seen, { state: 'resolved', value }),
    (error: unknown) => Object.assign(seen, { state: 'rejected', error }),
  );
  return seen;
}

/** A request's deadline whose signal the test aborts by hand; it records the worst case each call was announced with. */
function manualDeadline(): CallDeadline & { controller: AbortController; asked: (number | undefined)[] } {
  const controller = new AbortController();
  const asked: (number | undefined)[] = [];
  return {
    controller,
    asked,
    signalForCall: (worstCallMs) => {
      asked.push(worstCallMs);
      return controller.signal;
    },
  };
}
const listenersOf = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

const START = 1_800_000_000_000;
const signedBy = (key: string, cursor: string) => new CursorCodec(key).read(cursor).kind === 'valid';

/** The cursor secrets of a container whose first read answered these keys, at the clock's time. */
async function warmed(
  source: ReturnType<typeof manualSource>,
  keys: CursorKeys = { current: 'now', previous: undefined },
): Promise<CursorSecrets> {
  const cursors = new CursorSecrets(source);
  const first = cursors.encode(position);
  source.reads[0]?.resolve(keys);
  await first;
  return cursors;
}

describe('when the keys are read', () => {
  let nowMs = START;
  beforeEach(() => {
    nowMs = START;
    return setClock(() => nowMs);
  });

  it('prepare starts the read a container without keys needs, without waiting, and the request after it shares that read', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    cursors.prepare();
    expect(source.reads).toHaveLength(1);
    cursors.prepare(); // one read at a time
    const request = cursors.encode(position);
    expect(source.reads).toHaveLength(1);
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    expect(signedBy('now', await request)).toBe(true);
    expect(source.reads).toHaveLength(1);
  });

  it('requests arriving together in a container without keys share one read', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const requests = [
      cursors.encode(position),
      cursors.encode(position),
      cursors.decode(new CursorCodec('now').encode(position), undefined),
    ];
    expect(source.reads).toHaveLength(1);
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    const [first, second, decoded] = await Promise.all(requests);
    expect(signedBy('now', first as string) && signedBy('now', second as string)).toBe(true);
    expect(decoded).toEqual(position);
  });

  it('reads keys younger than KEYS_MAX_AGE_MS no more, a minute after their read or just before their age, by prepare or a request', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    for (const at of [MIN_REREAD_INTERVAL_MS, 2 * MIN_REREAD_INTERVAL_MS, KEYS_MAX_AGE_MS - 1]) {
      nowMs = START + at;
      cursors.prepare();
      expect(signedBy('now', await cursors.encode(position))).toBe(true);
      expect(await cursors.decode(new CursorCodec('now').encode(position), undefined)).toEqual(position);
      expect([at, source.reads.length]).toEqual([at, 1]);
    }
  });

  it('prepare reads them again from KEYS_MAX_AGE_MS after their read, once, and the requests meanwhile serve with the old ones', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    nowMs = START + KEYS_MAX_AGE_MS;
    cursors.prepare();
    expect(source.reads).toHaveLength(2);
    cursors.prepare();
    expect(signedBy('now', await cursors.encode(position))).toBe(true);
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.resolve({ current: 'after', previous: 'now' });
    await settle();
    expect(signedBy('after', await cursors.encode(position))).toBe(true);
    // Their age counts from this read now.
    nowMs += KEYS_MAX_AGE_MS - 1;
    cursors.prepare();
    expect(source.reads).toHaveLength(2);
  });
});

describe('a container without keys whose read fails', () => {
  let nowMs = START;
  let logged: Record<string, unknown>[] = [];
  beforeEach(() => {
    nowMs = START;
    logged = [];
    // LOG_LEVEL is silent in the tests: that silences the default sink only, a sink set here sees every line.
    const previousSink = setLogSink((line) => logged.push(JSON.parse(line)));
    const restoreClock = setClock(() => nowMs);
    return () => {
      restoreClock();
      setLogSink(previousSink);
    };
  });

  it('answers the requests waiting for it with its failure, and logs it as an error', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const request = cursors.encode(position);
    const failure = unavailable();
    source.reads[0]?.reject(failure);
    await expect(request).rejects.toBe(failure);
    expect(logged).toEqual([
      {
        time: expect.any(String),
        level: 'error',
        msg: 'cursor keys not read',
        error: JSON.parse(JSON.stringify(loggedError(failure))),
      },
    ]);
  });

  it('answers 503 at once for RETRY_FAILED_READ_MS without reading again, then reads again', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const request = cursors.encode(position);
    source.reads[0]?.reject(unavailable());
    await expect(request).rejects.toBeInstanceOf(ServiceUnavailableError);
    for (const after of [0, RETRY_FAILED_READ_MS - 1]) {
      nowMs = START + after;
      const refused = await cursors.encode(position).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ServiceUnavailableError);
      expect((refused as ServiceUnavailableError).status).toBe(503);
      // The request's log line says why (its cause).
      expect(loggedError(refused).cause).toEqual({
        name: 'Error',
        message: 'the cursor keys could not be read a moment ago',
      });
      await expect(cursors.decode(new CursorCodec('now').encode(position), undefined)).rejects.toBeInstanceOf(
        ServiceUnavailableError,
      );
      cursors.prepare();
      expect([after, source.reads.length]).toEqual([after, 1]);
    }
    nowMs = START + RETRY_FAILED_READ_MS;
    const again = cursors.encode(position);
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.resolve({ current: 'now', previous: undefined });
    expect(signedBy('now', await again)).toBe(true);
    // Only the failed read was logged.
    expect(logged.map((entry) => entry.level)).toEqual(['error']);
  });

  it('each failed read counts: another RETRY_FAILED_READ_MS without a read after the second fails', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    cursors.prepare();
    source.reads[0]?.reject(unavailable());
    await settle();
    nowMs = START + RETRY_FAILED_READ_MS;
    cursors.prepare();
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.reject(unavailable());
    await settle();
    nowMs = START + 2 * RETRY_FAILED_READ_MS - 1;
    await expect(cursors.encode(position)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(source.reads).toHaveLength(2);
    expect(logged.map((entry) => [entry.level, entry.msg])).toEqual([
      ['error', 'cursor keys not read'],
      ['error', 'cursor keys not read'],
    ]);
  });
});

describe('a container with keys whose read fails', () => {
  let nowMs = START;
  let logged: Record<string, unknown>[] = [];
  beforeEach(() => {
    nowMs = START;
    logged = [];
    const previousSink = setLogSink((line) => logged.push(JSON.parse(line)));
    const restoreClock = setClock(() => nowMs);
    return () => {
      restoreClock();
      setLogSink(previousSink);
    };
  });

  it('keeps its keys, logs a warning that they stay in use, and reads again at most once a MIN_REREAD_INTERVAL_MS', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    const failedAt = START + KEYS_MAX_AGE_MS;
    nowMs = failedAt;
    expect(signedBy('now', await cursors.encode(position))).toBe(true); // starts the read for their age
    expect(source.reads).toHaveLength(2);
    const failure = unavailable();
    source.reads[1]?.reject(failure);
    await settle();
    expect(logged).toEqual([
      {
        time: expect.any(String),
        level: 'warn',
        msg: 'cursor keys not read again; the known ones stay in use',
        error: JSON.parse(JSON.stringify(loggedError(failure))),
      },
    ]);
    for (const after of [0, RETRY_FAILED_READ_MS, MIN_REREAD_INTERVAL_MS - 1]) {
      nowMs = failedAt + after;
      cursors.prepare();
      expect(signedBy('now', await cursors.encode(position))).toBe(true);
      expect([after, source.reads.length]).toEqual([after, 2]);
    }
    nowMs = failedAt + MIN_REREAD_INTERVAL_MS;
    expect(signedBy('now', await cursors.encode(position))).toBe(true);
    expect(source.reads).toHaveLength(3);
    source.reads[2]?.resolve({ current: 'after', previous: 'now' });
    await settle();
    expect(signedBy('after', await cursors.encode(position))).toBe(true);
    expect(logged).toHaveLength(1);
  });
});

describe('a cursor no known key signed', () => {
  let nowMs = START;
  beforeEach(() => {
    nowMs = START;
    return setClock(() => nowMs);
  });
  const forged = () => new CursorCodec('elsewhere').encode(position);

  it('reads the keys at once, even right after they were read (a rotation since), and is accepted when the new keys know it', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    const answer = watch(cursors.decode(new CursorCodec('after').encode(position), undefined));
    await settle();
    expect(answer.state).toBe('pending'); // waits for the read that may know it
    expect(source.reads).toHaveLength(2);
    source.reads[1]?.resolve({ current: 'after', previous: 'now' });
    await settle();
    expect(answer).toEqual({ state: 'resolved', value: position });
  });

  it('reads the keys at most once a MIN_REREAD_INTERVAL_MS: the others are refused at once', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    const first = cursors.decode(forged(), undefined);
    await settle();
    source.reads[1]?.resolve({ current: 'now', previous: undefined });
    await expect(first).rejects.toBeInstanceOf(InvalidRequestError);
    for (const after of [0, MIN_REREAD_INTERVAL_MS - 1]) {
      nowMs = START + after;
      await expect(cursors.decode(forged(), undefined)).rejects.toBeInstanceOf(InvalidRequestError);
      expect([after, source.reads.length]).toEqual([after, 2]);
    }
    nowMs = START + MIN_REREAD_INTERVAL_MS;
    const later = cursors.decode(forged(), undefined);
    await settle();
    expect(source.reads).toHaveLength(3);
    source.reads[2]?.resolve({ current: 'now', previous: undefined });
    await expect(later).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('waits for the read under way instead of starting another, and so do the cursors after it', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    nowMs = START + KEYS_MAX_AGE_MS;
    cursors.prepare(); // the read for their age, not answered yet
    expect(source.reads).toHaveLength(2);
    const rotated = new CursorCodec('after').encode(position);
    const answers = [watch(cursors.decode(rotated, undefined)), watch(cursors.decode(rotated, undefined))];
    await settle();
    expect(source.reads).toHaveLength(2);
    expect(answers.map((answer) => answer.state)).toEqual(['pending', 'pending']);
    source.reads[1]?.resolve({ current: 'after', previous: 'now' });
    await settle();
    expect(answers).toEqual([
      { state: 'resolved', value: position },
      { state: 'resolved', value: position },
    ]);
  });
});

describe('a request waiting for a read', () => {
  let nowMs = START;
  beforeEach(() => {
    nowMs = START;
    return setClock(() => nowMs);
  });

  it("asks its deadline for a signal for the source's worst read", async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const deadline = manualDeadline();
    const answer = watch(cursors.encode(position, deadline));
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    await settle();
    expect(answer.state).toBe('resolved');
    expect(deadline.asked).toEqual([source.worstReadMs]);
  });

  it('answers 503 when its deadline passes first, leaves no listener, and the read goes on for the next request', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const deadline = manualDeadline();
    const answer = watch(cursors.encode(position, deadline));
    await settle();
    expect(answer.state).toBe('pending');
    const reason = new DOMException('The operation ran into the function timeout.', 'TimeoutError');
    deadline.controller.abort(reason);
    await settle();
    expect(answer.state).toBe('rejected');
    expect(answer.error).toBeInstanceOf(ServiceUnavailableError);
    expect((answer.error as ServiceUnavailableError).cause).toBe(reason);
    // Given up once: no listener left on the signal, which the request's other calls share.
    expect(listenersOf(deadline.controller.signal)).toBe(0);
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    await settle();
    expect(signedBy('now', await cursors.encode(position))).toBe(true);
    expect(source.reads).toHaveLength(1);
  });

  it('answers once the read does when its deadline does not pass, and leaves no listener', async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const deadline = manualDeadline();
    const answer = watch(cursors.encode(position, deadline));
    await settle();
    expect(answer.state).toBe('pending');
    source.reads[0]?.resolve({ current: 'now', previous: undefined });
    await settle();
    expect(answer.state).toBe('resolved');
    expect(signedBy('now', answer.value as string)).toBe(true);
    expect(listenersOf(deadline.controller.signal)).toBe(0);
  });

  it("answers with the read's failure when the read fails before its deadline, and leaves no listener", async () => {
    const source = manualSource();
    const cursors = new CursorSecrets(source);
    const deadline = manualDeadline();
    const answer = watch(cursors.encode(position, deadline));
    await settle();
    const failure = unavailable();
    source.reads[0]?.reject(failure);
    await settle();
    expect(answer).toEqual({ state: 'rejected', error: failure });
    expect(answer.error).toBe(failure);
    expect(listenersOf(deadline.controller.signal)).toBe(0);
  });

  it('with a cursor no known key signed, is refused with 400 when its deadline passes before the read', async () => {
    const source = manualSource();
    const cursors = await warmed(source);
    const deadline = manualDeadline();
    const answer = watch(cursors.decode(new CursorCodec('after').encode(position), undefined, deadline));
    await settle();
    expect([answer.state, source.reads.length]).toEqual(['pending', 2]);
    deadline.controller.abort(new Error("the request's deadline"));
    await settle();
    expect(answer.state).toBe('rejected');
    expect(answer.error).toBeInstanceOf(InvalidRequestError);
    // The read goes on: the keys it brings know the cursor.
    source.reads[1]?.resolve({ current: 'after', previous: 'now' });
    await settle();
    expect(await cursors.decode(new CursorCodec('after').encode(position), undefined)).toEqual(position);
  });
});
