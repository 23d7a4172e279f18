import { isoTimestamp } from '../clock';
import { integer, numberIn, text, textIn, type Item } from '../dynamodb/attribute-values';
import { ITEM_PARTITIONS } from '../dynamodb/table-definition';
import { isPetStatus } from './fields';
import type { Pet } from './schema';

/** Every pet is in one partition, in id order: `pk = PET`, `sk` = the id in 16 digits. */
export const PET_PARTITION_VALUE = text(ITEM_PARTITIONS.pets);

/** Ids are at most 16 decimal digits (2^53 - 1), so padding to 16 makes string order id order. */
const ID_WIDTH = 16;

export const petSortKey = (id: number): string => String(id).padStart(ID_WIDTH, '0');

/** A pet's item: its key, its four fields and when it was written. */
export function petItem(pet: Pet, createdAtMs: number): Item {
  return { pk: PET_PARTITION_VALUE, sk: text(petSortKey(pet.id)), ...petAttributes(pet), createdAt: text(isoTimestamp(createdAtMs)) };
}

export function petAttributes({ id, name, categoryId, status }: Pet): Item {
  return { id: integer(id), name: text(name), categoryId: integer(categoryId), status: text(status) };
}

/** A pet read back; an item without its four fields is a fault of ours (a 500), never answered half. */
export function toPet(item: Item): Pet {
  const [id, name, categoryId, status] = [numberIn(item, 'id'), textIn(item, 'name'), numberIn(item, 'categoryId'), textIn(item, 'status')];
  if (id === undefined || name === undefined || categoryId === undefined || !isPetStatus(status)) throw new Error('a pet item without its id, name, categoryId or status');
  return { id, name, categoryId, status };
}
