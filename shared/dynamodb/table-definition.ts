/**
 * The one table, described once. The local start-up and the tests create it from this
 * (local/create-table.ts) and the CDK stack declares it from this (infra/), so keys and
 * indexes cannot drift between them.
 *
 * Single-table layout (`pk` / `sk` are strings):
 *
 * | item            | pk                  | sk                       | other attributes                        |
 * |-----------------|---------------------|--------------------------|-----------------------------------------|
 * | pet             | `PET#<id mod 8>`    | id, zero-padded to 16    | id, name, categoryId, statusShard       |
 * |                 |                     |                          | (`<status>#<id mod 8>`), listShard      |
 * |                 |                     |                          | (`pets#<id mod 8>`), createdAt, nonce   |
 * | pet (former)    | `PET`               | id, zero-padded to 16    | id, name, categoryId, status, createdAt |
 * | id counter      | `SEQUENCE`          | `pet`                    | value: retired (docs/upgrading-pets.md) |
 * | API key         | `APIKEY#<hash>`     | the hash (SHA-256 of the | registry (`keys`), plan, limits,        |
 * |                 |                     | key, hex)                | createdAt; mirrored: apiKeyId,          |
 * |                 |                     |                          | usagePlanId, syncedAt                   |
 * | rate counters   | `RATE#<who>`        | `counters`               | minute/day windows and counts, refusal  |
 * |                 |                     |                          | streak, suspendedUntil, expiresAt (TTL);|
 * |                 |                     |                          | a sharded key's: the day's `shards`     |
 * | counter shard   | `RATE#key#<id>#<n>` | `counters`               | a sharded key's shard n: its windows    |
 * |                 |                     |                          | and counts, suspendedUntil, expiresAt   |
 * | idempotency     | `IDEMPOTENCY#<keyId>| `record`                 | pet (a map: the answer), firstUsedAt,   |
 * | record          | #<client's key>`    |                          | expiresAt (TTL, 24 h after first use)   |
 *
 * Pets are spread over PET_SHARDS partitions by id (`PET#<id mod 8>`), and the `petsByStatus`
 * and `petsById` indexes likewise (`available#3`, `pets#3`): no partition takes every create, every
 * getPet or every page. A page queries the shards in ascending id and merges them
 * (shared/pets/page-merge.ts); pages without a filter alternate between the table's shards and
 * `petsById`'s. The indexes are sparse: only pets carry `statusShard` and `listShard` (an
 * idempotency record keeps its pet in a map). Pets of
 * the former layout (all under `PET`, listed by status through `byStatus` on `status`) are read
 * while a stage upgrades (PetLayout below) and copied (docs/upgrading-pets.md).
 * Every API key and every idempotency record is a partition of its own: each is read and written
 * alone, by its key, so none shares DynamoDB's per-partition limits with another (a flood of
 * unknown tokens, or one API key's many creates, touches no one else's partition). The keys are
 * listed (by the key mirror, `npm run keys`) through the `registeredKeys` index, sparse too: only
 * key items carry `registry`. Its one partition is written only when a key changes.
 * Items with `expiresAt` are deleted by DynamoDB's TTL some time after it passes; code that
 * reads them checks the time itself.
 */
export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface GlobalIndexDefinition {
  readonly indexName: IndexName;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  /** Attributes copied into the index besides the keys: what a listing returns. */
  readonly projectedAttributes: readonly string[];
}

export interface TableDefinition {
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly globalSecondaryIndexes: readonly GlobalIndexDefinition[];
  /** Items with this attribute (seconds since the epoch) are deleted by DynamoDB once it passes. */
  readonly timeToLiveAttribute: string;
}

/** Pets by status, sharded: `statusShard` = `<status>#<id mod PET_SHARDS>`, sorted by id. */
export const STATUS_INDEX = 'petsByStatus';
/**
 * Every pet again, sharded as the table (`listShard` = `pets#<id mod PET_SHARDS>`), sorted by id: a
 * second set of partitions for pages without a filter, which alternate between the table's shards
 * and these. Every page reads every shard of its set, so one set serves about 6,000 pages a second
 * (3,000 read units / half a unit a query) whatever the number of shards; two serve twice that.
 */
export const LIST_INDEX = 'petsById';
/** The former status index, on `status`: read while a stage upgrades, gone once it is `current`. */
export const FORMER_STATUS_INDEX = 'byStatus';
/** The key registry's items and nothing else: how the registry is listed, never by a Scan. */
export const KEY_INDEX = 'registeredKeys';
export type IndexName = typeof STATUS_INDEX | typeof LIST_INDEX | typeof FORMER_STATUS_INDEX | typeof KEY_INDEX;

/**
 * How many partitions pets (and each status in the index) are spread over. Chosen from measured
 * figures (docs/scale-and-cost.md): at 8, 4,000 creates a second write 500 units a second to each
 * pet partition and to each shard of `available`, half of DynamoDB's per-partition limit; a page
 * costs 8 small queries. Changing it moves every pet: it is fixed.
 */
export const PET_SHARDS = 8;

/**
 * Where a stage is in the move from the former layout (every pet under `PET`, ids from the
 * `SEQUENCE` counter) to the sharded one (docs/upgrading-pets.md). A version of each step runs
 * beside one of the step before it (a canary), so each reads what the other writes, and the table
 * loses an index only a deploy after no code reads it:
 * - `upgrading`: reads both layouts, writes the former one (with time-ordered ids), so that the
 *   version it replaces sees every pet;
 * - `copying`: reads both, writes the sharded one (once every function runs `upgrading`);
 * - `copied`: reads and writes the sharded layout alone (once the pets are copied); the table still
 *   has the former status index, which `copying` code beside it reads;
 * - `current`: the same code, and the table without the former index (a fresh stage starts here).
 */
export const PET_LAYOUTS = ['upgrading', 'copying', 'copied', 'current'] as const;
export type PetLayout = (typeof PET_LAYOUTS)[number];

/** The key index's partition key and its one value, carried by key items only (which makes the index sparse). */
export const KEY_INDEX_PARTITION = { attribute: 'registry', value: 'keys' } as const;

/**
 * The items by their partition key, written as IAM's `dynamodb:LeadingKeys` patterns (StringLike:
 * `*` stands for any text): what a function's rights name (shared/functions.ts).
 */
export const ITEM_PARTITIONS = {
  /** One partition per shard: `PET#<id mod PET_SHARDS>`. */
  pets: 'PET#*',
  /** Every pet of the former layout: read while a stage upgrades (PetLayout), written while it is `upgrading`. */
  formerPets: 'PET',
  /**
   * The former id counter (`SEQUENCE`/`pet`), retired: no function of this version writes it. The
   * createPet role keeps the right to, so that the version before the sharded layout, still serving
   * while the first step's deploy replaces it (the role changes before the canary starts), creates
   * as it did. Remove it with the former layout's rights once every stage is `current`.
   */
  formerIdCounter: 'SEQUENCE',
  /** One partition per key: `APIKEY#<hash>`. */
  keyRegistry: 'APIKEY#*',
  /**
   * Where every key was before each had a partition of its own (`APIKEY`, the hash as sort key).
   * No function of this version reads it; the authorizer's role keeps the right to, so that its
   * previous version, still serving while a deploy replaces it (prod's 25 % canary runs for 30
   * minutes), does not fail every lookup. Remove that right once every stage has run this version
   * (docs/deploying-and-operating.md, "Upgrading a stage"). `npm start` moves an older data
   * directory's keys out of it (local/key-layout-upgrade.ts).
   */
  formerKeyRegistry: 'APIKEY',
  /** Requests counted per API key (the operations), a sharded key's shards (`RATE#key#<id>#<n>`) too. */
  keyCounters: 'RATE#key#*',
  /** Requests without a valid key counted per client address (the authorizer). */
  addressCounters: 'RATE#ip#*',
  /** createPet's idempotency records, one partition per record: `IDEMPOTENCY#<keyId>#<client's key>`. */
  idempotencyRecords: 'IDEMPOTENCY#*',
} as const;

export type ItemKind = keyof typeof ITEM_PARTITIONS;

const FORMER_STATUS_INDEX_DEFINITION: GlobalIndexDefinition = {
  indexName: FORMER_STATUS_INDEX,
  partitionKey: { name: 'status', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
  projectedAttributes: ['name', 'categoryId'],
};

/**
 * The table of a stage in this layout. DynamoDB adds or removes one index per update, so each step
 * changes one at most: `upgrading` adds the status index, `copying` the listing index, `current`
 * removes the former status index (`copied` changes none: its code stops reading it).
 */
export function tableDefinitionFor(layout: PetLayout): TableDefinition {
  if (layout === 'current') return tableDefinition;
  const [statusIndex, keyIndex, listIndex] = tableDefinition.globalSecondaryIndexes as [GlobalIndexDefinition, GlobalIndexDefinition, GlobalIndexDefinition];
  const indexes = layout === 'upgrading' ? [statusIndex, keyIndex] : [statusIndex, keyIndex, listIndex];
  return { ...tableDefinition, globalSecondaryIndexes: [...indexes, FORMER_STATUS_INDEX_DEFINITION] };
}

/** The table of a `current` stage, and of npm start (which copies an older data directory's pets at start-up). */
export const tableDefinition: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: STATUS_INDEX,
      partitionKey: { name: 'statusShard', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
      projectedAttributes: ['name', 'categoryId'],
    },
    {
      indexName: KEY_INDEX,
      partitionKey: { name: KEY_INDEX_PARTITION.attribute, type: 'S' },
      // The table's own sort key, the hash on a key item: a key id (a hash prefix) is a begins_with.
      sortKey: { name: 'sk', type: 'S' },
      // What a listing of the keys returns: for `npm run keys list` and for the mirror's comparison.
      projectedAttributes: ['plan', 'limits', 'apiKeyId', 'usagePlanId', 'syncedAt', 'createdAt'],
    },
    {
      indexName: LIST_INDEX,
      partitionKey: { name: 'listShard', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
      projectedAttributes: ['name', 'categoryId', 'statusShard'],
    },
  ],
  timeToLiveAttribute: 'expiresAt',
};

/** Whether code of this step reads the former layout too. */
export const readsFormerLayout = (layout: PetLayout): boolean => layout === 'upgrading' || layout === 'copying';
