import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  integer,
  numberIn,
  numberOf,
  sameItem,
  text,
  textIn,
  type Item,
} from '../../../../shared/dynamodb/attribute-values';

/**
 * The operations' items in DynamoDB's attribute values, written and read without the document
 * client: held to what the document client's own marshalling (@aws-sdk/util-dynamodb) makes of the
 * same values, so the items in the table are the ones it wrote before.
 */
const safeInteger = fc.maxSafeInteger();

describe('attribute values', () => {
  it('writes texts and integers as the document client does', () => {
    fc.assert(
      fc.property(fc.string(), safeInteger, (value, number) => {
        expect({ s: text(value), n: integer(number) }).toEqual(marshall({ s: value, n: number }));
      }),
      { numRuns: 500 },
    );
  });

  it('reads back what it wrote, and nothing from an attribute of another type or an absent one', () => {
    fc.assert(
      fc.property(fc.string(), safeInteger, (value, number) => {
        const item: Item = { s: text(value), n: integer(number) };
        expect([textIn(item, 's'), numberIn(item, 'n'), numberOf(item, 'n')]).toEqual([value, number, number]);
        expect(unmarshall(item)).toEqual({ s: value, n: number });
        expect([textIn(item, 'n'), numberIn(item, 's'), textIn(item, 'absent'), numberIn(item, 'absent')]).toEqual([
          undefined,
          undefined,
          undefined,
          undefined,
        ]);
      }),
      { numRuns: 500 },
    );
    expect([textIn(undefined, 's'), numberIn(undefined, 'n')]).toEqual([undefined, undefined]);
    // A number the item must hold: absent, or of another type, it is a fault of ours.
    expect(() => numberOf({ n: text('7') }, 'n')).toThrow('the item holds no number "n"');
    expect(() => numberOf({}, 'count')).toThrow('the item holds no number "count"');
  });

  it('tells an item stored as written from any other', () => {
    const written: Item = { pk: text('PET'), id: integer(7), name: text('Rex') };
    expect(sameItem({ ...written }, written)).toBe(true);
    expect(sameItem({ name: text('Rex'), id: integer(7), pk: text('PET') }, written)).toBe(true);
    // A value of another content, another type, an attribute more, one fewer, or another name.
    expect(sameItem({ ...written, name: text('Max') }, written)).toBe(false);
    expect(sameItem({ ...written, id: integer(8) }, written)).toBe(false);
    expect(sameItem({ ...written, id: text('7') }, written)).toBe(false);
    expect(sameItem({ ...written, name: { N: 'Rex' } }, written)).toBe(false);
    expect(sameItem({ ...written, createdAt: text('2026-11-26') }, written)).toBe(false);
    const { name: _, ...fewer } = written;
    expect(sameItem(fewer, written)).toBe(false);
    expect(sameItem({ pk: text('PET'), id: integer(7), nickname: text('Rex') }, written)).toBe(false);
    // Neither text nor number (a map, a boolean): never the same.
    expect(sameItem({ ...written, name: { BOOL: true } }, { ...written, name: { BOOL: true } })).toBe(false);
  });
});
