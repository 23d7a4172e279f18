import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequestError } from '../errors';
import { MAX_ID, PET_STATUSES, type PetStatus } from './fields';

/**
 * Page cursors: where the previous page ended and which filter it was for, signed with an HMAC
 * so that a client cannot forge or alter one. Format: base64url(JSON payload) "." base64url(tag).
 * A cursor only says "after id N", so a walk neither repeats nor skips a pet that existed for
 * the whole walk, whatever is created meanwhile.
 */
export interface CursorPosition {
  /** Last id of the previous page. */
  readonly afterId: number;
  readonly status: PetStatus | undefined;
}

interface CursorPayload {
  v: 1;
  a: number;
  s?: PetStatus;
}

const TAG_BYTES = 16;

export class CursorCodec {
  readonly #secret: string | undefined;

  /** An unset secret is a deployment mistake: listing then fails with a 500 that says so in the log. */
  constructor(secret: string | undefined) {
    this.#secret = secret;
  }

  encode(position: CursorPosition): string {
    const payload: CursorPayload = { v: 1, a: position.afterId };
    if (position.status !== undefined) payload.s = position.status;
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#tag(body).toString('base64url')}`;
  }

  /** Throws a 400 for a cursor that is malformed, tampered with, or made for another filter. */
  decode(cursor: string, status: PetStatus | undefined): CursorPosition {
    const position = this.#verify(cursor);
    if (position === undefined) throw invalidCursor('is malformed or has been altered');
    if (position.status !== status) throw invalidCursor('belongs to a listing with another status filter');
    return position;
  }

  #verify(cursor: string): CursorPosition | undefined {
    const [body, tag, ...rest] = cursor.split('.');
    if (body === undefined || tag === undefined || rest.length > 0 || cursor.length > 256) return undefined;
    // The tag's text, not its decoded bytes: base64url decoding is lenient (padding, stray characters,
    // unused bits), and only the cursor as given is valid.
    const given = Buffer.from(tag);
    const expected = Buffer.from(this.#tag(body).toString('base64url'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    return toPosition(payload);
  }

  #tag(body: string): Buffer {
    if (this.#secret === undefined) throw new Error('CURSOR_SECRET is not set: page cursors cannot be signed');
    return createHmac('sha256', this.#secret).update(body).digest().subarray(0, TAG_BYTES);
  }
}

function toPosition(payload: unknown): CursorPosition | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { v, a, s } = payload as Partial<CursorPayload>;
  if (v !== 1 || typeof a !== 'number' || !Number.isSafeInteger(a) || a < 1 || a > MAX_ID) return undefined;
  if (s !== undefined && !PET_STATUSES.includes(s)) return undefined;
  return { afterId: a, status: s };
}

function invalidCursor(why: string): InvalidRequestError {
  return new InvalidRequestError([{ path: 'query.cursor', message: `${why}; start again without a cursor` }]);
}
