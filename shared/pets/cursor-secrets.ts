import { now } from '../clock';
import type { Config } from '../config';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { ServiceUnavailableError } from '../errors';
import { loggedError, writeLog } from '../log';
import { CursorCodec, positionOf, type CursorPosition } from './cursor';
import type { PetStatus } from './pet-status';

/**
 * The keys that sign page cursors, and when to read them again. In AWS they live in Secrets
 * Manager, so they stay out of the function's configuration and can be rotated without a deploy:
 * cursors are signed with the current key and accepted with the current or the previous one.
 * This file is the rule; where the keys come from is a `CursorKeySource` (Secrets Manager in AWS,
 * the environment locally).
 */
export interface CursorKeys {
  /** Undefined only when nothing was configured: signing then fails with a 500 (a deployment mistake). */
  readonly current: string | undefined;
  /** The key before the last rotation; undefined before the first one. */
  readonly previous: string | undefined;
}

export interface CursorKeySource {
  /** The longest one read can take, all its attempts included: a request waits no longer than that or its deadline. */
  readonly worstReadMs: number;
  /** Rejects with a ServiceUnavailableError when the keys cannot be had now. */
  read(): Promise<CursorKeys>;
}

/** Keys read are used this long; the next request after that reads them again (a rotation is seen within it). */
export const KEYS_MAX_AGE_MS = 5 * 60_000;
/**
 * At most one read this often for a cursor that no known key signed (so forged cursors cannot
 * multiply calls to Secrets Manager), counted apart from the reads for age: an instance that read
 * its keys a moment before a rotation still reads them at once for the first cursor signed with
 * the new value. And at most one read this often after a failed read while keys are known (they
 * are used meanwhile).
 */
export const MIN_REREAD_INTERVAL_MS = 60_000;
/** With no keys known, a failed read is not tried again for this long: the requests meanwhile answer 503 at once. */
export const RETRY_FAILED_READ_MS = 1_000;

/** The keys of the environment (`CURSOR_SECRET`, `CURSOR_SECRET_PREVIOUS`): locally, where there is no Secrets Manager. */
export function environmentCursorKeys(
  settings: Pick<Config, 'cursorSecret' | 'cursorSecretPrevious'>,
): CursorKeySource {
  const keys: CursorKeys = { current: settings.cursorSecret, previous: settings.cursorSecretPrevious };
  return { worstReadMs: 0, read: () => Promise.resolve(keys) };
}

interface KnownKeys {
  readonly codec: CursorCodec;
  /** When the read that gave them started. */
  readonly readAt: number;
}

/**
 * The page cursors of one container: the keys read once, read again after `KEYS_MAX_AGE_MS` or
 * (at most once a minute) when a cursor verifies against neither known key. One read at a time,
 * shared by every request that needs it. Only a container with no keys yet waits for a read, no
 * longer than the request's deadline (a 503 then; the read goes on for the next request), and a
 * request with a cursor no known key signed waits for the one read that may know it. Keys past
 * their age keep serving while they are read again in the background, and a failed read keeps
 * them in use: a rotation is rare, and an outage of Secrets Manager should neither slow nor stop
 * walks.
 */
export class CursorSecrets {
  #known: KnownKeys | undefined;
  #reading: Promise<CursorCodec> | undefined;
  #lastReadAt = Number.NEGATIVE_INFINITY;
  #lastUnknownReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly source: CursorKeySource) {}

  /**
   * Starts reading the keys when they are not known or too old, without waiting: the read then
   * overlaps the request's DynamoDB calls. Its failure is the business of whoever needs the keys.
   */
  prepare(): void {
    const at = now();
    const known = this.#known;
    if (known !== undefined && at - known.readAt < KEYS_MAX_AGE_MS) return;
    void this.#readIfDue(at);
  }

  /** A cursor for the page after this position, signed with the current key. */
  async encode(position: CursorPosition, deadline?: CallDeadline): Promise<string> {
    return (await this.#codec(deadline)).encode(position);
  }

  /**
   * The position a cursor names: a 400 when it is malformed, altered, signed with neither known key
   * (after one read of the keys at most a minute), or made for another filter.
   */
  async decode(cursor: string, status: PetStatus | undefined, deadline?: CallDeadline): Promise<CursorPosition> {
    let reading = (await this.#codec(deadline)).read(cursor);
    if (reading.kind === 'unknown-signature') {
      // Perhaps signed with a key this container has not read yet (a rotation since its last read).
      const fresher = this.#afterUnknownSignature(deadline);
      if (fresher !== undefined) {
        try {
          reading = (await fresher).read(cursor);
        } catch {
          // The keys could not be read again (in time): no known key signed the cursor, which is
          // the client's to mend (a 400), not an outage to report.
        }
      }
    }
    return positionOf(reading, status);
  }

  #codec(deadline: CallDeadline | undefined): CursorCodec | Promise<CursorCodec> {
    const at = now();
    const known = this.#known;
    if (known !== undefined) {
      // Past their age: read again in the background, and serve with these meanwhile.
      if (at - known.readAt >= KEYS_MAX_AGE_MS) void this.#readIfDue(at);
      return known.codec;
    }
    const reading = this.#readIfDue(at);
    if (reading === undefined)
      throw new ServiceUnavailableError(new Error('the cursor keys could not be read a moment ago'));
    return this.#within(reading, deadline);
  }

  #afterUnknownSignature(deadline: CallDeadline | undefined): Promise<CursorCodec> | undefined {
    let reading = this.#reading;
    if (reading === undefined) {
      const at = now();
      if (at - this.#lastUnknownReadAt < MIN_REREAD_INTERVAL_MS) return undefined;
      this.#lastUnknownReadAt = at;
      reading = this.#startRead(at);
    }
    return this.#within(reading, deadline);
  }

  /** The read under way, or a new one unless one failed too recently. */
  #readIfDue(at: number): Promise<CursorCodec> | undefined {
    if (this.#reading !== undefined) return this.#reading;
    const since = at - this.#lastReadAt;
    // With no keys and no read under way, any read before this one failed.
    if (since < (this.#known !== undefined ? MIN_REREAD_INTERVAL_MS : RETRY_FAILED_READ_MS)) return undefined;
    return this.#startRead(at);
  }

  #startRead(at: number): Promise<CursorCodec> {
    this.#lastReadAt = at;
    const reading = this.source.read().then(
      (keys) => {
        const codec = new CursorCodec(keys.current, keys.previous);
        this.#known = { codec, readAt: at };
        this.#reading = undefined;
        return codec;
      },
      (error: unknown) => {
        this.#reading = undefined;
        writeLog({
          level: this.#known === undefined ? 'error' : 'warn',
          msg:
            this.#known === undefined
              ? 'cursor keys not read'
              : 'cursor keys not read again; the known ones stay in use',
          error: loggedError(error),
        });
        throw error;
      },
    );
    // Whoever waits for the read handles its failure; one nobody waits for (in the background, or
    // given up at a deadline) must not become an unhandled rejection, which ends a Lambda container.
    reading.catch(ignore);
    this.#reading = reading;
    return reading;
  }

  /** Waits for the read no longer than the request's deadline: a 503 then, while the read goes on for later requests. */
  #within(reading: Promise<CursorCodec>, deadline: CallDeadline | undefined): Promise<CursorCodec> {
    const signal = deadline?.signalForCall(this.source.worstReadMs);
    if (signal === undefined) return reading;
    if (signal.aborted) return Promise.reject(new ServiceUnavailableError(signal.reason));
    return new Promise((resolve, reject) => {
      const giveUp = () => reject(new ServiceUnavailableError(signal.reason));
      signal.addEventListener('abort', giveUp, { once: true });
      reading.then(
        (codec) => {
          signal.removeEventListener('abort', giveUp);
          resolve(codec);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', giveUp);
          reject(error);
        },
      );
    });
  }
}

function ignore(): void {}
