import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors';
import { CursorCodec } from '../../shared/pets/cursor';
import { CursorSecrets, environmentCursorKeys } from '../../shared/pets/cursor-secrets';

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
    await expect(cursors.encode(position)).rejects.toThrow(/CURSOR_SECRET/);
  });
});
