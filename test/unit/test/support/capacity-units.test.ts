import { describe, expect, it } from 'vitest';
import { itemSize, numberSize, readUnits, writeUnits } from '../../../support/capacity-units';
import { indexEntryOf, readCharge, writeCharges, type TableSchema } from '../../../support/partition-charges';

/**
 * The partition model's arithmetic (test/support/capacity-units.ts, partition-charges.ts) against
 * the examples of DynamoDB's developer guide: "DynamoDB item sizes and formats" and "DynamoDB read
 * and write operations".
 */
const KB = 1024;

describe('capacity units, as the developer guide counts them', () => {
  it('reads: per 4 KB rounded up, half when eventually consistent, double in a transaction', () => {
    // "reading a 3,500-byte item consumes the same throughput as reading a 4 KB item"
    expect(readUnits(3_500, 'strong')).toBe(1);
    // "if your item size is 8 KB, you require 2 read units ... 1 if eventually consistent, 4 for transactional"
    expect(readUnits(8 * KB, 'strong')).toBe(2);
    expect(readUnits(8 * KB, 'eventual')).toBe(1);
    expect(readUnits(8 * KB, 'transactional')).toBe(4);
    // "If you read a 10 KB item, DynamoDB rounds the item size to 12 KB"
    expect(readUnits(10 * KB, 'strong')).toBe(3);
    // GetItem of no item still costs the minimum
    expect(readUnits(0, 'eventual')).toBe(0.5);
  });

  it('a Query is charged once for all the data it read: 10 items of 40.8 KB together round to 44 KB', () => {
    const item = { pk: { S: 'x' }, data: { S: 'y'.repeat(Math.round((40.8 * KB) / 10) - 7) } };
    expect(itemSize(item) * 10).toBeGreaterThan(40 * KB);
    expect(
      readCharge(
        'x',
        Array.from({ length: 10 }, () => item),
        'strong',
      ),
    ).toEqual({ partition: 'x', capacity: 'read', units: 11 });
    expect(
      readCharge(
        'x',
        Array.from({ length: 10 }, () => item),
        'eventual',
      ).units,
    ).toBe(5.5);
    // Rounded once per request, not per item: 20 items of 100 bytes are one unit.
    expect(
      readCharge(
        'x',
        Array.from({ length: 20 }, () => ({ pk: { S: 'x'.repeat(98) } })),
        'strong',
      ).units,
    ).toBe(1);
  });

  it('writes: per 1 KB rounded up, at least one, double in a transaction', () => {
    expect(writeUnits(500)).toBe(1);
    expect(writeUnits(1 * KB)).toBe(1);
    expect(writeUnits(1.5 * KB)).toBe(2);
    expect(writeUnits(1.5 * KB, true)).toBe(4);
    expect(writeUnits(0)).toBe(1);
  });

  it('item sizes: names and values; numbers 1 byte per two significant digits plus 1; lists and maps 3 bytes plus 1 per element', () => {
    expect(itemSize({ name: { S: 'Rex' } })).toBe(4 + 3);
    expect(itemSize({ name: { S: 'é' } })).toBe(4 + 2); // UTF-8 bytes
    expect(numberSize('123')).toBe(3);
    expect(numberSize('0012300')).toBe(3); // leading and trailing zeroes trimmed
    expect(numberSize('-1.5')).toBe(2);
    expect(itemSize({ ok: { BOOL: true }, no: { NULL: true } })).toBe(2 + 1 + 2 + 1);
    expect(itemSize({ pet: { M: { id: { N: '7' } } } })).toBe(3 + 3 + (1 + 2 + 2));
    expect(itemSize({ tags: { L: [{ S: 'a' }, { S: 'bc' }] } })).toBe(4 + 3 + (1 + 1) + (1 + 2));
    expect(itemSize({ empty: { M: {} } })).toBe(5 + 3);
    expect(itemSize({ raw: { B: Buffer.from('abcd').toString('base64') } })).toBe(3 + 4); // raw bytes, not base64's
  });
});

const TABLE: TableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'byStatus', partitionKey: 'status', sortKey: 'id', projected: ['name'] }],
};
const PET_KEY = { pk: { S: 'PET' }, sk: { S: '0000000000000007' } };
const pet = (status: string, name = 'Rex') => ({
  pk: { S: 'PET' },
  sk: { S: '0000000000000007' },
  id: { N: '7' },
  name: { S: name },
  status: { S: status },
  createdAt: { S: '2026-11-25T00:00:00.000Z' },
});

describe('which partitions a write charges', () => {
  it('a new pet: its table partition and its status partition of the index', () => {
    expect(writeCharges(TABLE, PET_KEY, { before: undefined, after: pet('available') })).toEqual([
      { partition: 'PET', capacity: 'write', units: 1 },
      { partition: 'byStatus:available', capacity: 'write', units: 1 },
    ]);
  });

  it('an index entry holds the keys of the index and of the table, and the projected attributes', () => {
    expect(indexEntryOf(pet('sold'), TABLE.indexes[0]!, TABLE)).toEqual({
      pk: { S: 'PET' },
      sk: { S: '0000000000000007' },
      id: { N: '7' },
      name: { S: 'Rex' },
      status: { S: 'sold' },
    });
    expect(
      indexEntryOf({ pk: { S: 'SEQUENCE' }, sk: { S: 'pet' }, value: { N: '3' } }, TABLE.indexes[0]!, TABLE),
    ).toBeUndefined();
  });

  it('a write that moves an item in an index deletes the old entry and puts the new one; one that changes no indexed attribute writes no index', () => {
    expect(
      writeCharges(TABLE, PET_KEY, { before: pet('available'), after: pet('sold') }).map((charge) => charge.partition),
    ).toEqual(['PET', 'byStatus:available', 'byStatus:sold']);
    expect(
      writeCharges(TABLE, PET_KEY, { before: pet('available'), after: pet('available', 'Max') }).map(
        (charge) => charge.partition,
      ),
    ).toEqual(['PET', 'byStatus:available']);
    expect(
      writeCharges(TABLE, PET_KEY, {
        before: pet('available'),
        after: { ...pet('available'), createdAt: { S: 'later' } },
      }).map((charge) => charge.partition),
    ).toEqual(['PET']);
  });

  it('the larger of the item before and after; a delete pays for what it removed; items outside the index write none', () => {
    const big = { ...pet('available'), notes: { S: 'x'.repeat(1_500) } };
    expect(writeCharges(TABLE, PET_KEY, { before: big, after: pet('available') })[0]).toEqual({
      partition: 'PET',
      capacity: 'write',
      units: 2,
    });
    expect(writeCharges(TABLE, PET_KEY, { before: big, after: undefined })).toEqual([
      { partition: 'PET', capacity: 'write', units: 2 },
      { partition: 'byStatus:available', capacity: 'write', units: 1 },
    ]);
    expect(
      writeCharges(
        TABLE,
        { pk: { S: 'SEQUENCE' }, sk: { S: 'pet' } },
        {
          before: undefined,
          after: {
            pk: { S: 'SEQUENCE' },
            sk: { S: 'pet' },
            value: { N: '1' },
          },
        },
      ),
    ).toEqual([{ partition: 'SEQUENCE', capacity: 'write', units: 1 }]);
  });

  it('an item made by an update is charged to the partition its key names (there is no item before it)', () => {
    expect(
      writeCharges(
        TABLE,
        { pk: { S: 'RATE#key#1' }, sk: { S: 'counters' } },
        {
          before: undefined,
          after: {
            pk: { S: 'RATE#key#1' },
            sk: { S: 'counters' },
            n: { N: '1' },
          },
        },
      ),
    ).toEqual([{ partition: 'RATE#key#1', capacity: 'write', units: 1 }]);
  });

  it('a transaction pays double, on the table and on the index; a failed condition pays for the item it read and writes no index', () => {
    expect(writeCharges(TABLE, PET_KEY, { before: undefined, after: pet('pending') }, { transactional: true })).toEqual(
      [
        { partition: 'PET', capacity: 'write', units: 2 },
        { partition: 'byStatus:pending', capacity: 'write', units: 2 },
      ],
    );
    expect(
      writeCharges(TABLE, PET_KEY, { before: pet('pending'), after: undefined }, { conditionFailed: true }),
    ).toEqual([{ partition: 'PET', capacity: 'write', units: 1 }]);
  });
});
