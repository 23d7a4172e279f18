import { describe, expect, it } from 'vitest';
import {
  listShard,
  petAttributes,
  petItem,
  petKey,
  petSortKey,
  shardOf,
  shardPartition,
  statusShard,
  toPet,
} from '../../../../shared/pets/pet-items';
import { petSpaceOf, RELEASE_PET_LIFETIME_SECONDS, SPACE_KEYS } from '../../../../shared/pets/pet-space';
import { ITEM_PARTITIONS } from '../../../../shared/dynamodb/table-definition';
import type { Pet } from '../../../../shared/pets/schema';

/**
 * A pet's item in DynamoDB's attribute values, and a pet read back from it or from an idempotency
 * record's map. (On DynamoDB Local: test/integration/pet-repository.test.ts.)
 */
const pet: Pet = { id: 123_456_789_013, name: 'Rex', categoryId: 4, status: 'sold' };
const WRITTEN = Date.UTC(2026, 10, 26, 12, 0, 0, 7);

describe('the keys of a pet', () => {
  it('sorts ids as numbers: 16 digits, zero-padded', () => {
    expect(petSortKey(42)).toBe('0000000000000042');
    expect(petSortKey(2 ** 53 - 1)).toBe('9007199254740991');
  });

  it('puts each pet in the shard of its id modulo 8: PET#<shard>', () => {
    expect([8, 13, 15, 16].map(shardOf)).toEqual([0, 5, 7, 0]);
    expect(shardPartition(5)).toBe('PET#5');
    expect(listShard(5)).toBe('pets#5');
    expect(statusShard('pending', 5)).toBe('pending#5');
    expect(petKey(13)).toStrictEqual({ pk: { S: 'PET#5' }, sk: { S: '0000000000000013' } });
  });
});

describe("the keys and item of a release pet (the releases' pet space)", () => {
  it("are apart from every customer's: RELEASES#PET#<shard>, which PET#* does not match, and index keys no customer's query names", () => {
    expect(shardPartition(5, 'releases')).toBe('RELEASES#PET#5');
    expect(shardPartition(5, 'customers')).toBe('PET#5');
    expect(listShard(5, 'releases')).toBe('pets#releases#5');
    expect(statusShard('pending', 5, 'releases')).toBe('pending#releases#5');
    expect(petKey(13, 'releases')).toStrictEqual({ pk: { S: 'RELEASES#PET#5' }, sk: { S: '0000000000000013' } });
    expect(SPACE_KEYS.customers.partitionPrefix).toBe(ITEM_PARTITIONS.pets.slice(0, -1));
    expect(SPACE_KEYS.releases.partitionPrefix).toBe(ITEM_PARTITIONS.releasePets.slice(0, -1));
  });

  it('expires a day after its create (TTL), and reads back as the same pet', () => {
    const item = petItem(pet, WRITTEN, 'nonce-1', 'releases');
    expect(item).toStrictEqual({
      pk: { S: 'RELEASES#PET#5' },
      sk: { S: '0123456789013'.padStart(16, '0') },
      id: { N: '123456789013' },
      name: { S: 'Rex' },
      categoryId: { N: '4' },
      statusShard: { S: 'sold#releases#5' },
      listShard: { S: 'pets#releases#5' },
      nonce: { S: 'nonce-1' },
      expiresAt: { N: String(Math.floor(WRITTEN / 1000) + 86_400) },
    });
    expect(RELEASE_PET_LIFETIME_SECONDS).toBe(86_400);
    expect(toPet(item)).toStrictEqual(pet);
  });

  it("is the release key's principal's alone: any other principal's space is the customers'", () => {
    expect(petSpaceOf({ petSpace: 'releases' })).toBe('releases');
    expect(petSpaceOf({})).toBe('customers');
  });
});

describe("a pet's item", () => {
  it("in the sharded layout: its key, fields, status and listing shards and its create's nonce; no `status`, and no `createdAt` (the id holds the time)", () => {
    expect(petItem(pet, WRITTEN, 'nonce-1')).toStrictEqual({
      pk: { S: 'PET#5' },
      sk: { S: '0123456789013'.padStart(16, '0') },
      id: { N: '123456789013' },
      name: { S: 'Rex' },
      categoryId: { N: '4' },
      statusShard: { S: 'sold#5' },
      listShard: { S: 'pets#5' },
      nonce: { S: 'nonce-1' },
    });
  });

  it('in an idempotency record: the four fields, with `status`', () => {
    expect(petAttributes(pet)).toStrictEqual({
      id: { N: '123456789013' },
      name: { S: 'Rex' },
      categoryId: { N: '4' },
      status: { S: 'sold' },
    });
  });
});

describe('a pet read back', () => {
  it("is the same pet from its item, or a record's map", () => {
    expect(toPet(petItem(pet, WRITTEN, 'n'))).toStrictEqual(pet);
    expect(toPet(petAttributes(pet))).toStrictEqual(pet);
  });

  it('is a fault of ours, never half a pet, when a field is missing or the status is none of the three', () => {
    const whole = petAttributes(pet);
    for (const missing of ['id', 'name', 'categoryId', 'status']) {
      const item = { ...whole };
      delete item[missing];
      expect(() => toPet(item)).toThrow(new Error('a pet item without its id, name, categoryId or status'));
    }
    expect(() => toPet({ ...whole, status: { S: 'lost' } })).toThrow(Error);
    const { status: _status, ...withoutStatus } = whole;
    expect(() => toPet({ ...withoutStatus, statusShard: { S: 'lost#5' } })).toThrow(Error);
    expect(toPet({ ...withoutStatus, statusShard: { S: 'pending#5' } }).status).toBe('pending');
  });
});
