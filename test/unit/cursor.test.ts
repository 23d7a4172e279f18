import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors';
import { CursorCodec } from '../../shared/pets/cursor';

const codec = new CursorCodec('secret-one');

describe('CursorCodec', () => {
  it('round-trips a position with and without a status filter', () => {
    expect(codec.decode(codec.encode({ afterId: 42, status: undefined }), undefined)).toEqual({ afterId: 42, status: undefined });
    expect(codec.decode(codec.encode({ afterId: 7, status: 'sold' }), 'sold')).toEqual({ afterId: 7, status: 'sold' });
  });

  it('is opaque: no plain id in the cursor text', () => {
    expect(codec.encode({ afterId: 123456, status: undefined })).not.toContain('123456');
  });

  it('refuses a cursor whose payload was altered, even into a valid one', () => {
    const [, tag] = codec.encode({ afterId: 1, status: undefined }).split('.');
    const forgedBody = Buffer.from(JSON.stringify({ v: 1, a: 5 })).toString('base64url');
    expect(() => codec.decode(`${forgedBody}.${tag}`, undefined)).toThrow(InvalidRequestError);
  });

  it('accepts only the text it gave: another spelling of the same tag bytes is refused', () => {
    const cursor = codec.encode({ afterId: 42, status: undefined });
    const [body, tag] = cursor.split('.') as [string, string];
    // The tag's 16 bytes take 22 base64url characters; decoding ignores the last one's 4 lowest bits.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const lastFlipped = ALPHABET[ALPHABET.indexOf(tag.at(-1) as string) ^ 1];
    const respellings = [`${cursor}==`, `${cursor}!`, `${body}.${tag.slice(0, 10)} ${tag.slice(10)}`, `${body}.${tag.slice(0, -1)}${lastFlipped}`, `${body}.${tag.replaceAll('-', '+').replaceAll('_', '/')}`];
    for (const respelled of new Set(respellings.filter((text) => text !== cursor))) {
      expect(Buffer.from(respelled.slice(body.length + 1), 'base64url').equals(Buffer.from(tag, 'base64url')), `${respelled} is the same tag`).toBe(true);
      expect(() => codec.decode(respelled, undefined), respelled).toThrow(InvalidRequestError);
    }
  });

  it('refuses a cursor signed with another secret', () => {
    const foreign = new CursorCodec('secret-two').encode({ afterId: 1, status: undefined });
    expect(() => codec.decode(foreign, undefined)).toThrow(InvalidRequestError);
  });

  it.each(['x', 'a.b.c', '.', 'eyJ2IjoxfQ.', '%%%.%%%', 'a'.repeat(300)])('refuses the malformed cursor %j', (cursor) => {
    expect(() => codec.decode(cursor, undefined)).toThrow(InvalidRequestError);
  });

  it('refuses a cursor used with another status filter', () => {
    const cursor = codec.encode({ afterId: 3, status: 'pending' });
    expect(() => codec.decode(cursor, 'sold')).toThrow(/another status filter/);
    expect(() => codec.decode(cursor, undefined)).toThrow(/another status filter/);
  });

  it('names query.cursor in the error', () => {
    try {
      codec.decode('nonsense', undefined);
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidRequestError).details).toEqual([{ path: 'query.cursor', message: expect.stringContaining('malformed') }]);
    }
  });

  it('cannot sign without a secret (a deployment mistake, not a client error)', () => {
    expect(() => new CursorCodec(undefined).encode({ afterId: 1, status: undefined })).toThrow(/CURSOR_SECRET/);
  });
});
