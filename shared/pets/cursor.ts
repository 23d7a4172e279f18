import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequestError } from '../errors';
import { MAX_ID, PET_STATUSES } from './fields';
import type { PetStatus } from './pet-status';

/**
 * Page cursors: where the previous page ended and which filter it was for, signed with an HMAC
 * so that a client cannot forge or alter one. Format: base64url(JSON payload) "." base64url(tag).
 * A cursor says "after id N", so a walk neither repeats nor skips a pet that existed for the whole
 * walk, whatever is created meanwhile; and up to which id the page that made it could show pets,
 * so that the next page, on an instance whose clock is behind, still reaches the pet that made
 * the previous one say more follow (decisions.md: a Link never leads to an empty page that claims
 * more was there).
 */
export interface CursorPosition {
  /** Last id of the previous page. */
  readonly afterId: number;
  readonly status: PetStatus | undefined;
  /** The newest id the previous page could show (its settle bound); none in cursors made before it was kept. */
  readonly newestId?: number | undefined;
}

interface CursorPayload {
  v: 1;
  a: number;
  s?: PetStatus;
  n?: number;
}

const TAG_BYTES = 16;
/** The tag's 16 bytes in base64url, without padding. */
const TAG_LENGTH = 22;
const MAX_CURSOR_LENGTH = 256;

/**
 * What a cursor's signature says: signed by one of the known keys (and naming a valid position),
 * not a cursor at all, or a cursor of the right form that no known key signed (forged, altered,
 * or signed with a key this container does not know yet).
 */
export type CursorReading =
  | { readonly kind: 'valid'; readonly position: CursorPosition }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'unknown-signature' };

const MALFORMED: CursorReading = { kind: 'malformed' };
const UNKNOWN_SIGNATURE: CursorReading = { kind: 'unknown-signature' };

export class CursorCodec {
  readonly #current: string | undefined;
  readonly #previous: string | undefined;

  /**
   * Cursors are signed with `current` and accepted when signed with `current` or `previous`, so
   * that a walk in progress survives one rotation of the key. An unset current key is a
   * deployment mistake: listing then fails with a 500 that says so in the log.
   */
  constructor(current: string | undefined, previous?: string) {
    this.#current = current;
    this.#previous = previous;
  }

  encode(position: CursorPosition): string {
    // JSON leaves `s` out when there is no filter, `n` when no bound is given.
    const payload: CursorPayload = { v: 1, a: position.afterId, s: position.status, n: position.newestId };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${tagOf(this.#signingKey(), body)}`;
  }

  /** Throws a 400 for a cursor that is malformed, tampered with, or made for another filter. */
  decode(cursor: string, status: PetStatus | undefined): CursorPosition {
    return positionOf(this.read(cursor), status);
  }

  /** What the cursor's signature says, without deciding the answer (see `positionOf`). */
  read(cursor: string): CursorReading {
    if (cursor.length > MAX_CURSOR_LENGTH) return MALFORMED;
    const parts = cursor.split('.');
    if (parts.length !== 2) return MALFORMED;
    const [body, tag] = parts as [string, string];
    if (tag.length !== TAG_LENGTH) return MALFORMED;
    // The tag's text, not its decoded bytes: base64url decoding is lenient (padding, stray characters,
    // unused bits), and only the cursor as given is valid.
    const given = Buffer.from(tag);
    if (
      !sameTag(given, tagOf(this.#signingKey(), body)) &&
      (this.#previous === undefined || !sameTag(given, tagOf(this.#previous, body)))
    ) {
      return UNKNOWN_SIGNATURE;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      // Not JSON: no payload, so no position below.
    }
    const position = toPosition(payload);
    return position === undefined ? MALFORMED : { kind: 'valid', position };
  }

  #signingKey(): string {
    if (this.#current === undefined) throw new Error('CURSOR_SECRET is not set: page cursors cannot be signed');
    return this.#current;
  }
}

/** The position a reading gives for a listing with this filter; a 400 when it gives none. */
export function positionOf(reading: CursorReading, status: PetStatus | undefined): CursorPosition {
  if (reading.kind !== 'valid') throw invalidCursor('is malformed or has been altered');
  if (reading.position.status !== status) throw invalidCursor('belongs to a listing with another status filter');
  return reading.position;
}

function tagOf(key: string, body: string): string {
  return createHmac('sha256', key).update(body).digest().subarray(0, TAG_BYTES).toString('base64url');
}

function sameTag(given: Buffer, expected: string): boolean {
  const bytes = Buffer.from(expected);
  return given.length === bytes.length && timingSafeEqual(given, bytes);
}

function toPosition(payload: unknown): CursorPosition | undefined {
  // Object(): null, undefined and values that are no object have none of these members.
  const { v, a, s, n } = Object(payload) as Partial<CursorPayload>;
  if (v !== 1 || !isId(a)) return undefined;
  if (s !== undefined && !PET_STATUSES.includes(s)) return undefined;
  if (n !== undefined && !(isId(n) && n > a)) return undefined;
  return { afterId: a, status: s, newestId: n };
}

function isId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_ID;
}

function invalidCursor(why: string): InvalidRequestError {
  return new InvalidRequestError([{ path: 'query.cursor', message: `${why}; start again without a cursor` }]);
}
