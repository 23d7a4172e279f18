import { createHash } from 'node:crypto';

/** Keys are stored and looked up only by their SHA-256; the key itself is never kept. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** The non-secret id of a key: enough of its hash to tell keys apart in logs and listings. */
export function keyIdOf(keyHash: string): string {
  return keyHash.slice(0, 16);
}

/** What a key id looks like. */
export const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;
