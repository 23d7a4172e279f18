import { describe, expect, it } from 'vitest';
import { hashApiKey, KEY_ID_PATTERN, keyIdOf } from '../../../../shared/auth/api-key-hash';

/** Keys are kept and looked up by their SHA-256 only; the id that names a key in logs is its first 16 hex digits. */
describe("an API key's hash and id", () => {
  it("is the SHA-256 of the key's UTF-8 bytes, in lower-case hex (FIPS 180-2's test vector, and a key beyond ASCII)", () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('names the key by the first 16 hex digits of its hash', () => {
    expect(keyIdOf('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')).toBe('ba7816bf8f01cfea');
  });

  it('a key id is exactly 16 lower-case hex digits', () => {
    expect(KEY_ID_PATTERN.test('ba7816bf8f01cfea')).toBe(true);
    for (const other of [
      'ba7816bf8f01cfe',
      'ba7816bf8f01cfea0',
      'BA7816BF8F01CFEA',
      'ba7816bf8f01cfeg',
      'x ba7816bf8f01cfea',
      'ba7816bf8f01cfea\n',
    ])
      expect(KEY_ID_PATTERN.test(other)).toBe(false);
  });
});
