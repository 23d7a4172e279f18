import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../../shared/errors';
import { CursorCodec, type CursorPosition } from '../../../../shared/pets/cursor';

const codec = new CursorCodec('secret-one');

describe('CursorCodec', () => {
  it('round-trips a position with and without a status filter', () => {
    expect(codec.decode(codec.encode({ afterId: 42, status: undefined }), undefined)).toEqual({
      afterId: 42,
      status: undefined,
    });
    expect(codec.decode(codec.encode({ afterId: 7, status: 'sold' }), 'sold')).toEqual({ afterId: 7, status: 'sold' });
  });

  it('round-trips the bound of the page that made it (issue 52), and a cursor made before bounds were kept has none', () => {
    expect(codec.decode(codec.encode({ afterId: 42, status: undefined, newestId: 90 }), undefined)).toStrictEqual({
      afterId: 42,
      status: undefined,
      newestId: 90,
    });
    expect(
      codec.decode(codec.encode({ afterId: 7, status: 'sold', newestId: Number.MAX_SAFE_INTEGER }), 'sold'),
    ).toStrictEqual({ afterId: 7, status: 'sold', newestId: Number.MAX_SAFE_INTEGER });
    expect(codec.decode(signed('secret-one', '{"v":1,"a":42}'), undefined)).toStrictEqual({
      afterId: 42,
      status: undefined,
      newestId: undefined,
    });
  });

  it('round-trips the edges of the id range: after pet 1, and after the largest id', () => {
    for (const afterId of [1, 2, Number.MAX_SAFE_INTEGER]) {
      expect(codec.decode(codec.encode({ afterId, status: undefined }), undefined)).toEqual({
        afterId,
        status: undefined,
      });
    }
  });

  it('refuses a signed position outside the id range (a key leak must not open other reads)', () => {
    const signed = new CursorCodec('secret-one');
    for (const afterId of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
      expect(signed.read(signed.encode({ afterId, status: undefined })).kind).toBe('malformed');
    }
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
    const respellings = [
      `${cursor}==`,
      `${cursor}!`,
      `${body}.${tag.slice(0, 10)} ${tag.slice(10)}`,
      `${body}.${tag.slice(0, -1)}${lastFlipped}`,
      `${body}.${tag.replaceAll('-', '+').replaceAll('_', '/')}`,
    ];
    for (const respelled of new Set(respellings.filter((text) => text !== cursor))) {
      expect(
        Buffer.from(respelled.slice(body.length + 1), 'base64url').equals(Buffer.from(tag, 'base64url')),
        `${respelled} is the same tag`,
      ).toBe(true);
      expect(() => codec.decode(respelled, undefined), respelled).toThrow(InvalidRequestError);
    }
  });

  it('refuses a cursor signed with another secret', () => {
    const foreign = new CursorCodec('secret-two').encode({ afterId: 1, status: undefined });
    expect(() => codec.decode(foreign, undefined)).toThrow(InvalidRequestError);
  });

  it.each(['x', 'a.b.c', '.', 'eyJ2IjoxfQ.', '%%%.%%%', 'a'.repeat(300)])(
    'refuses the malformed cursor %j',
    (cursor) => {
      expect(() => codec.decode(cursor, undefined)).toThrow(InvalidRequestError);
    },
  );

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
      expect((error as InvalidRequestError).details).toEqual([
        { path: 'query.cursor', message: expect.stringContaining('malformed') },
      ]);
    }
  });

  it('cannot sign without a secret (a deployment mistake, not a client error)', () => {
    expect(() => new CursorCodec(undefined).encode({ afterId: 1, status: undefined })).toThrow(/CURSOR_SECRET/);
  });
});

/** A cursor as the format says (base64url(payload) "." base64url(first 16 bytes of its HMAC-SHA256)), for payloads the codec would never write. */
function signed(key: string, payloadText: string): string {
  const body = Buffer.from(payloadText).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url')}`;
}

describe('CursorCodec, given validly signed payloads it never writes (a leaked key must not open other reads or a 500)', () => {
  it('the signing helper makes the cursors the codec makes', () => {
    expect(signed('secret-one', '{"v":1,"a":42}')).toBe(codec.encode({ afterId: 42, status: undefined }));
    expect(signed('secret-one', '{"v":1,"a":7,"s":"sold"}')).toBe(codec.encode({ afterId: 7, status: 'sold' }));
  });

  it.each([
    '{"v":1,"a":1',
    'null',
    '5',
    '"v"',
    '[1]',
    '{"v":2,"a":1}',
    '{"a":1}',
    '{"v":1,"a":"5"}',
    '{"v":1}',
    '{"v":1,"a":1,"s":"lost"}',
    '{"v":1,"a":1,"s":null}',
    '{"v":1,"a":5,"n":5}',
    '{"v":1,"a":5,"n":4}',
    '{"v":1,"a":5,"n":"9"}',
    '{"v":1,"a":5,"n":9.5}',
    '{"v":1,"a":5,"n":9007199254740992}',
    '{"v":1,"a":5,"n":null}',
  ])('refuses %s as malformed', (payload) => {
    expect(codec.read(signed('secret-one', payload))).toEqual({ kind: 'malformed' });
    expect(() => codec.decode(signed('secret-one', payload), undefined)).toThrow(InvalidRequestError);
  });

  it('takes the members it knows and ignores others', () => {
    expect(codec.read(signed('secret-one', '{"v":1,"a":3,"s":"pending","x":true}'))).toEqual({
      kind: 'valid',
      position: { afterId: 3, status: 'pending' },
    });
    expect(codec.read(signed('secret-one', '{"v":1,"a":3,"n":4,"x":true}'))).toStrictEqual({
      kind: 'valid',
      position: { afterId: 3, status: undefined, newestId: 4 },
    });
  });

  it('a valid cursor with one more part is malformed', () => {
    expect(codec.read(`${codec.encode({ afterId: 1, status: undefined })}.x`)).toEqual({ kind: 'malformed' });
  });

  it('reads the signature of a cursor up to 256 characters, and refuses a longer one as malformed before', () => {
    const tag = 'A'.repeat(22);
    expect(codec.read(`${'A'.repeat(233)}.${tag}`)).toEqual({ kind: 'unknown-signature' });
    expect(codec.read(`${'A'.repeat(234)}.${tag}`)).toEqual({ kind: 'malformed' });
    // A validly signed one over the bound too.
    const long = signed('secret-one', JSON.stringify({ v: 1, a: 1, pad: 'x'.repeat(200) }));
    expect(long.length).toBeGreaterThan(256);
    expect(codec.read(long)).toEqual({ kind: 'malformed' });
  });

  it('a tag of 22 characters that are not all ASCII is refused, not a failure', () => {
    const [body] = codec.encode({ afterId: 1, status: undefined }).split('.');
    expect(codec.read(`${body}.${'é'.repeat(22)}`)).toEqual({ kind: 'unknown-signature' });
  });
});

describe('CursorCodec across a rotation of its key', () => {
  const position: CursorPosition = { afterId: 17, status: 'available' };
  // What the instances know before and after one rotation, and after a second one.
  const beforeRotation = new CursorCodec('key-one');
  const afterRotation = new CursorCodec('key-two', 'key-one');
  const afterSecondRotation = new CursorCodec('key-three', 'key-two');

  it('accepts a cursor signed with the current key', () => {
    expect(afterRotation.decode(afterRotation.encode(position), 'available')).toEqual(position);
    expect(afterRotation.read(new CursorCodec('key-two').encode(position))).toEqual({ kind: 'valid', position });
  });

  it('accepts a cursor signed with the previous key: a walk begun before the rotation goes on', () => {
    const signedBefore = beforeRotation.encode(position);
    expect(afterRotation.decode(signedBefore, 'available')).toEqual(position);
    expect(afterRotation.read(signedBefore)).toEqual({ kind: 'valid', position });
  });

  it('signs with the current key only', () => {
    const signed = afterRotation.encode(position);
    expect(new CursorCodec('key-two').read(signed)).toEqual({ kind: 'valid', position });
    expect(new CursorCodec('key-one').read(signed)).toEqual({ kind: 'unknown-signature' });
    expect(signed).not.toBe(beforeRotation.encode(position));
  });

  it('refuses a cursor signed with an unknown key (400), and tells it apart from a malformed one', () => {
    const foreign = new CursorCodec('someone-elses-key').encode(position);
    expect(afterRotation.read(foreign)).toEqual({ kind: 'unknown-signature' });
    expect(() => afterRotation.decode(foreign, 'available')).toThrow(InvalidRequestError);
    expect(() => afterRotation.decode(foreign, 'available')).toThrow(/start again without a cursor/);
    for (const malformed of ['x', 'a.b.c', `${foreign}=`, `${foreign.slice(0, -1)}`])
      expect(afterRotation.read(malformed), malformed).toEqual({ kind: 'malformed' });
  });

  it('after two rotations, refuses a cursor signed before the first (400: start again without a cursor)', () => {
    const signedBefore = beforeRotation.encode(position);
    expect(afterSecondRotation.read(signedBefore)).toEqual({ kind: 'unknown-signature' });
    expect(() => afterSecondRotation.decode(signedBefore, 'available')).toThrow(/start again without a cursor/);
    // The one signed between the two rotations is still good.
    expect(afterSecondRotation.decode(afterRotation.encode(position), 'available')).toEqual(position);
  });

  it('refuses, with either key, a cursor whose payload was altered or that belongs to another filter', () => {
    const [, tag] = beforeRotation.encode(position).split('.');
    const forgedBody = Buffer.from(JSON.stringify({ v: 1, a: 99, s: 'available' })).toString('base64url');
    expect(afterRotation.read(`${forgedBody}.${tag}`)).toEqual({ kind: 'unknown-signature' });
    expect(() => afterRotation.decode(beforeRotation.encode(position), 'sold')).toThrow(/another status filter/);
  });
});
