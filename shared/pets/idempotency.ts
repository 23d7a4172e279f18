import * as z from 'zod/mini';
import { IdempotencyKeyReusedError } from '../errors';
import { described, describeAs } from './describe';
import type { NewPet, Pet } from './schema';

/**
 * Idempotent creates: a client names a create with a key of its own, so that its retries after a
 * 503 or a lost answer make at most one animal. The rules live here; the repository stores the
 * record atomically with the pet (shared/pets/repository.ts).
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

const KEY_TEXT = new RegExp(IDEMPOTENCY_KEY_PATTERN);
const QUOTED = new RegExp(`^${QUOTED_KEY}$`);
const ESCAPE = /\\(["\\])/g;

/** The key a header value names: a well-formed quoted form unwrapped, so `"abc"` and `abc` are one key. */
export function idempotencyKeyOf(text: string): string {
  return QUOTED.test(text) ? text.slice(1, -1).replace(ESCAPE, '$1') : text;
}

const KEY_MESSAGE = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no space or control character), optionally in double quotes`;

export const IdempotencyKeyHeader = described(
  z.optional(z.pipe(z.string().check(z.regex(KEY_TEXT, KEY_MESSAGE)), z.transform(idempotencyKeyOf))),
  {
    description:
      'Makes the create safe to retry: a retry with the same key and body within 24 hours answers the first answer again (with ' +
      '`Idempotent-Replayed: true`) instead of adding a second animal. A fresh random value per animal, e.g. a UUID v4, reused on ' +
      'every retry of that create. Keys belong to the API key that sends them. 1 to 255 visible ASCII characters; a value that ' +
      'is a well-formed RFC 8941 string (`"abc"`, escapes `\\"` and `\\\\`) names the key inside it, so `"abc"` and `abc` are one key; ' +
      'any other value is the key as written. Given once. Bodies are compared after normalization (name trimmed, `status` defaulted).',
    override: describeAs({ type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN, examples: ['5f2b9a3e-8c1d-4e7a-9b6f-2d4c8e1a7f30'] }),
  },
);

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
  if (pet.name !== request.name || pet.categoryId !== request.categoryId || pet.status !== request.status) throw new IdempotencyKeyReusedError();
  return pet;
}
