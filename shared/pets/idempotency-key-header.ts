import * as z from 'zod/mini';
import { described, describeAs } from './describe';
import {
  IDEMPOTENCY_KEY_MESSAGE,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_TEXT,
  idempotencyKeyOf,
} from './idempotency';

/** The `Idempotency-Key` header of createPet (the rules: idempotency.ts). */
export const IdempotencyKeyHeader = described(
  z.optional(
    z.pipe(z.string().check(z.regex(IDEMPOTENCY_KEY_TEXT, IDEMPOTENCY_KEY_MESSAGE)), z.transform(idempotencyKeyOf)),
  ),
  {
    description:
      'Makes the create safe to retry: a retry with the same key and body within 24 hours answers the first answer again (with ' +
      '`Idempotent-Replayed: true`) instead of adding a second animal. A fresh random value per animal, e.g. a UUID v4, reused on ' +
      'every retry of that create. Keys belong to the API key that sends them. 1 to 255 visible ASCII characters; a value that ' +
      'is a well-formed RFC 8941 string (`"abc"`, escapes `\\"` and `\\\\`) names the key inside it, so `"abc"` and `abc` are one key; ' +
      'any other value is the key as written. Given once. Bodies are compared after normalization (name trimmed, `status` defaulted).',
    override: describeAs({
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
      examples: ['5f2b9a3e-8c1d-4e7a-9b6f-2d4c8e1a7f30'],
    }),
  },
);
