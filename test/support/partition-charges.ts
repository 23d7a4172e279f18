import {
  itemSize,
  readUnits,
  writeUnits,
  type AttributeValue,
  type Item,
  type ReadConsistency,
} from './capacity-units';

/**
 * Which partitions a DynamoDB request charges, and how many units, given the table's key schema
 * (as DescribeTable gives it) and the items before and after a write. A partition is one partition
 * key value of the table (`PET#3`) or of a global secondary index (`petsByStatus:available#3`):
 * DynamoDB serves each at most its per-partition rates, whatever the table's billing.
 */
export interface KeySchema {
  readonly partitionKey: string;
  readonly sortKey?: string | undefined;
}

export interface IndexSchema extends KeySchema {
  readonly name: string;
  /** `ALL`, or the attributes copied besides the keys (KEYS_ONLY: none). */
  readonly projected: 'ALL' | readonly string[];
}

export interface TableSchema extends KeySchema {
  readonly indexes: readonly IndexSchema[];
}

export type Capacity = 'read' | 'write';

export interface Charge {
  readonly partition: string;
  readonly capacity: Capacity;
  readonly units: number;
}

/** A partition key value as text: `PET#3`, or `petsByStatus:available#3` for an index's. */
export function partitionLabel(value: AttributeValue | undefined, index?: string): string {
  const text = value?.S ?? value?.N ?? value?.B ?? '?';
  return index === undefined ? text : `${index}:${text}`;
}

/** The item's entry in an index: absent when the item lacks the index's keys (a sparse index). */
export function indexEntryOf(item: Item | undefined, index: IndexSchema, table: KeySchema): Item | undefined {
  if (item === undefined || item[index.partitionKey] === undefined) return undefined;
  if (index.sortKey !== undefined && item[index.sortKey] === undefined) return undefined;
  if (index.projected === 'ALL') return item;
  const names = new Set([index.partitionKey, index.sortKey, table.partitionKey, table.sortKey, ...index.projected]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));
}

/** An item before a write and after it (undefined: none). */
export interface ItemChange {
  readonly before: Item | undefined;
  readonly after: Item | undefined;
}

export interface WriteOptions {
  readonly transactional?: boolean;
  /** The condition failed: only the item read is charged, no index is written. */
  readonly conditionFailed?: boolean;
}

/**
 * One item written (put, updated or deleted; its key as the request names it): the table's
 * partition pays for the larger of the item before and after; each index the item is in pays for
 * its entry, twice when the write moves it (the old entry deleted, the new one put), nothing when
 * its entry does not change.
 */
export function writeCharges(
  table: TableSchema,
  key: Item,
  { before, after }: ItemChange,
  { transactional = false, conditionFailed = false }: WriteOptions = {},
): Charge[] {
  const partition = partitionLabel(key[table.partitionKey]);
  if (conditionFailed) return [{ partition, capacity: 'write', units: writeUnits(itemSize(before), transactional) }];
  const charges: Charge[] = [
    { partition, capacity: 'write', units: writeUnits(Math.max(itemSize(before), itemSize(after)), transactional) },
  ];
  for (const index of table.indexes) {
    const old = indexEntryOf(before, index, table);
    const updated = indexEntryOf(after, index, table);
    if (old === undefined && updated === undefined) continue;
    const entry = (item: Item) => ({
      partition: partitionLabel(item[index.partitionKey], index.name),
      capacity: 'write' as const,
      units: writeUnits(itemSize(item), transactional),
    });
    if (old !== undefined && updated !== undefined && sameIndexKey(old, updated, index)) {
      if (JSON.stringify(sorted(old)) !== JSON.stringify(sorted(updated)))
        charges.push(entry(itemSize(old) > itemSize(updated) ? old : updated));
      continue;
    }
    if (old !== undefined) charges.push(entry(old));
    if (updated !== undefined) charges.push(entry(updated));
  }
  return charges;
}

/** A read of these items in one partition: one charge for all the data it read (rounded up once). */
export function readCharge(partition: string, items: readonly Item[], consistency: ReadConsistency): Charge {
  return {
    partition,
    capacity: 'read',
    units: readUnits(
      items.reduce((sum, item) => sum + itemSize(item), 0),
      consistency,
    ),
  };
}

function sameIndexKey(a: Item, b: Item, index: IndexSchema): boolean {
  const same = (name: string | undefined) => name === undefined || JSON.stringify(a[name]) === JSON.stringify(b[name]);
  return same(index.partitionKey) && same(index.sortKey);
}

function sorted(item: Item): [string, AttributeValue][] {
  return Object.entries(item).sort(([a], [b]) => a.localeCompare(b));
}
