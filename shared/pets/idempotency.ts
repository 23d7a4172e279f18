import { IdempotencyKeyReusedError } from '../errors';
import type { NewPet, Pet } from './schema';

/**
 * Idempotent creates: a client names a create with a key of its own, so that its retries after a
 * 503 or a lost answer make at most one animal. The rules live here; the repository's writes store
 * the record atomically with the pet (shared/pets/pet-writes.ts).
 */

/** A key is kept this long from its first use; after that its value may name a new create. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/**
 * The header's text: 1 to 255 visible ASCII characters (0x21-0x7E), taken as written; or the same
 * key in the quoted form of the IETF draft, an RFC 8941 string (`"abc"`, with `\"` and `\\` as its
 * only escapes), unwrapped. A value is read as the quoted form exactly when it is a well-formed
 * one, so every visible-ASCII value names a key (`"abc` is the key `"abc`), except `""`, the quoted
 * form of nothing. Each repetition in the quoted branch counts one character of the key.
 */
const QUOTED_KEY = `"(?:[!#-\\[\\]-~]|\\\\["\\\\]){1,${IDEMPOTENCY_KEY_MAX_LENGTH}}"`;
export const IDEMPOTENCY_KEY_PATTERN = `^(?!""$)(?:[!-~]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}|${QUOTED_KEY})$`;

/** The header's text, and what a client reads when it is refused. */
export const IDEMPOTENCY_KEY_TEXT = new RegExp(IDEMPOTENCY_KEY_PATTERN);
export const IDEMPOTENCY_KEY_MESSAGE = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no space or control character), optionally in double quotes`;

const QUOTED = new RegExp(`^${QUOTED_KEY}$`);
const ESCAPE = /\\(["\\])/g;

/** The key a header value names: a well-formed quoted form unwrapped, so `"abc"` and `abc` are one key. */
export function idempotencyKeyOf(text: string): string {
  return QUOTED.test(text) ? text.slice(1, -1).replace(ESCAPE, '$1') : text;
}

/** Whose key it is (the API key's id: keys of two API keys never meet) and its value. */
export interface IdempotencyKey {
  readonly owner: string;
  readonly value: string;
}

/** What is kept of a create made with a key: its answer, and until when. */
export interface IdempotencyRecord {
  readonly pet: Pet;
  /** Seconds since the epoch; the record is dead from then on (and DynamoDB's TTL deletes it later). */
  readonly expiresAt: number;
}

export const expiryOf = (firstUseMs: number): number => Math.floor(firstUseMs / 1000) + IDEMPOTENCY_RETENTION_SECONDS;

export const isLive = (record: IdempotencyRecord, nowMs: number): boolean => record.expiresAt > nowMs / 1000;

/**
 * A request meeting a live record of its key: the same create again (its validated, normalized
 * body equals the recorded one) gets the recorded pet; another body is a 422.
 */
export function replayOf(record: IdempotencyRecord, request: NewPet): Pet {
  const { pet } = record;
  if (pet.name !== request.name || pet.categoryId !== request.categoryId || pet.status !== request.status)
    throw new IdempotencyKeyReusedError();
  return pet;
}
