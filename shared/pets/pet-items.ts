import { isoTimestamp } from '../clock';
import { integer, numberIn, text, textIn, type Item } from '../dynamodb/attribute-values';
import { ITEM_PARTITIONS, PET_SHARDS } from '../dynamodb/table-definition';
import { isPetStatus } from './fields';
import type { Pet, PetStatus } from './schema';

/** Ids are at most 16 decimal digits (2^53 - 1), so padding to 16 makes string order id order. */
const ID_WIDTH = 16;

export const petSortKey = (id: number): string => String(id).padStart(ID_WIDTH, '0');

/** The shard of a pet: its id modulo PET_SHARDS (the 12 random low bits of a time-ordered id spread them evenly). */
export const shardOf = (id: number): number => id % PET_SHARDS;

/** `PET#<shard>`: where a pet is. */
export const shardPartition = (shard: number): string => `${ITEM_PARTITIONS.pets.slice(0, -1)}${shard}`;

/** The listing index's key of a shard: `pets#3`. */
export const listShard = (shard: number): string => `pets#${shard}`;

/** The status index's key of a status in a shard: `available#3`. */
export const statusShard = (status: PetStatus, shard: number): string => `${status}#${shard}`;

export const petKey = (id: number): Item => ({ pk: text(shardPartition(shardOf(id))), sk: text(petSortKey(id)) });

/**
 * A pet's item: its key, its fields (the status as `statusShard`, which keys the status index;
 * no `status`, the former layout's attribute), its shard of the listing index, when it was
 * written, and the create's nonce, by which a create knows its own item from another's.
 */
export function petItem(pet: Pet, createdAtMs: number, nonce: string): Item {
  return {
    ...petKey(pet.id),
    id: integer(pet.id),
    name: text(pet.name),
    categoryId: integer(pet.categoryId),
    statusShard: text(statusShard(pet.status, shardOf(pet.id))),
    listShard: text(listShard(shardOf(pet.id))),
    createdAt: text(isoTimestamp(createdAtMs)),
    nonce: text(nonce),
  };
}

/** The four fields as an idempotency record keeps them (a map, so the record is in no index). */
export function petAttributes({ id, name, categoryId, status }: Pet): Item {
  return { id: integer(id), name: text(name), categoryId: integer(categoryId), status: text(status) };
}

/**
 * A pet read back from its item (`statusShard`) or from a record's map (`status`); an item
 * without its four fields is a fault of ours (a 500), never answered half.
 */
export function toPet(item: Item): Pet {
  const status = textIn(item, 'status') ?? textIn(item, 'statusShard')?.split('#', 1)[0];
  const [id, name, categoryId] = [numberIn(item, 'id'), textIn(item, 'name'), numberIn(item, 'categoryId')];
  if (id === undefined || name === undefined || categoryId === undefined || !isPetStatus(status)) throw new Error('a pet item without its id, name, categoryId or status');
  return { id, name, categoryId, status };
}
