import { integer, numberIn, text, textIn, type Item } from '../dynamodb/attribute-values';
import { PET_SHARDS } from '../dynamodb/table-definition';
import { isPetStatus } from './fields';
import { SPACE_KEYS, type PetSpace } from './pet-space';
import type { Pet, PetStatus } from './schema';

/** Ids are at most 16 decimal digits (2^53 - 1), so padding to 16 makes string order id order. */
const ID_WIDTH = 16;

export const petSortKey = (id: number): string => String(id).padStart(ID_WIDTH, '0');

/** The shard of a pet: its id modulo PET_SHARDS (the 12 random low bits of a time-ordered id spread them evenly). */
export const shardOf = (id: number): number => id % PET_SHARDS;

/** `PET#<shard>` (`RELEASES#PET#<shard>` in the releases' space): where a pet is. */
export const shardPartition = (shard: number, space: PetSpace = 'customers'): string =>
  `${SPACE_KEYS[space].partitionPrefix}${shard}`;

/** The listing index's key of a shard: `pets#3` (`pets#releases#3`). */
export const listShard = (shard: number, space: PetSpace = 'customers'): string =>
  `pets#${SPACE_KEYS[space].indexInfix}${shard}`;

/** The status index's key of a status in a shard: `available#3` (`available#releases#3`); the status comes first (toPet). */
export const statusShard = (status: PetStatus, shard: number, space: PetSpace = 'customers'): string =>
  `${status}#${SPACE_KEYS[space].indexInfix}${shard}`;

export const petKey = (id: number, space: PetSpace = 'customers'): Item => ({
  pk: text(shardPartition(shardOf(id), space)),
  sk: text(petSortKey(id)),
});

/**
 * A pet's item: its key, its fields (the status as `statusShard`, which keys the status indexes;
 * no `status`, the former layout's attribute), its shard of the listing index, and the create's
 * nonce, by which a create knows its own item from another's. In the releases' space, also when
 * it expires (`expiresAt`, TTL). No `createdAt` (items written before issue 52 have one): the id
 * holds the time to the millisecond, and without it 28 items, a shard's share of a page of 100,
 * read in half a read unit (3.3 KB with short names; 4.2 KB with it, a whole unit).
 */
export function petItem(pet: Pet, createdAtMs: number, nonce: string, space: PetSpace = 'customers'): Item {
  const shard = shardOf(pet.id);
  const { lifetimeSeconds } = SPACE_KEYS[space];
  return {
    ...petKey(pet.id, space),
    id: integer(pet.id),
    name: text(pet.name),
    categoryId: integer(pet.categoryId),
    statusShard: text(statusShard(pet.status, shard, space)),
    listShard: text(listShard(shard, space)),
    nonce: text(nonce),
    ...(lifetimeSeconds === undefined ? {} : { expiresAt: integer(Math.floor(createdAtMs / 1000) + lifetimeSeconds) }),
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
  if (id === undefined || name === undefined || categoryId === undefined || !isPetStatus(status))
    throw new Error('a pet item without its id, name, categoryId or status');
  return { id, name, categoryId, status };
}
