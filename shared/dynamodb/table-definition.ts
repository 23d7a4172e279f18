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
 * |                 |                     |                          | (`pets#<id mod 8>`), nonce              |
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
 * | release pet     | `RELEASES#PET#<id   | id, zero-padded to 16    | as a pet's, the index keys              |
 * |                 | mod 8>`             |                          | `<status>#releases#<n>`,                |
 * |                 |                     |                          | `pets#releases#<n>`; expiresAt (TTL,    |
 * |                 |                     |                          | a day after its create)                 |
 *
 * Pets are spread over PET_SHARDS partitions by id (`PET#<id mod 8>`), and the `petsByStatus`
 * and `petsById` indexes likewise (`available#3`, `pets#3`): no partition takes every create, every
 * getPet or every page. A page queries the shards in ascending id and merges them
 * (shared/pets/page-merge.ts); pages without a filter alternate between the table's shards and
 * `petsById`'s. The indexes are sparse: only pets carry `statusShard` and `listShard` (an
 * idempotency record keeps its pet in a map). The former pets layout (every pet under `PET`, listed
 * by status through `byStatus`, ids from a `SEQUENCE` counter) is retired: no function reads or
 * writes it, and none has a right on it. A stage that skipped the last step of its upgrade may
 * still hold those items, which only the operator's `npm run pets-upgrade` reads (check,
 * delete-former: docs/upgrading-pets.md); a stage still on that layout upgrades with the last
 * version that carries the steps (de7ab16) first.
 * Every API key and every idempotency record is a partition of its own: each is read and written
 * alone, by its key, so none shares DynamoDB's per-partition limits with another (a flood of
 * unknown tokens, or one API key's many creates, touches no one else's partition). The keys are
 * listed (by the key mirror, `npm run keys`) through the `registeredKeys` index, sparse too: only
 * key items carry `registry`. Its one partition is written only when a key changes.
 * The release check's pets (shared/pets/pet-space.ts) are in partitions and index keys of their
 * own, which no customer's request names.
 * Items with `expiresAt` are deleted by DynamoDB's TTL some time after it passes; code that
 * reads them checks the time itself, but for the release pets, which only the check reads (its
 * listing pages past those not yet deleted).
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
 * The same again (the same keys and attributes): a second set of partitions for pages with a
 * filter, which alternate between the two, as pages without one do between the table and
 * `petsById`. One status can be most pets (90 % `available`): its pages then read one set's 8
 * shards each, whatever its share, and two sets serve twice the pages of one.
 */
export const STATUS_INDEX_AGAIN = 'petsByStatusAgain';
/**
 * Every pet again, sharded as the table (`listShard` = `pets#<id mod PET_SHARDS>`), sorted by id: a
 * second set of partitions for pages without a filter, which alternate between the table's shards
 * and these. Every page reads every shard of its set, so one set serves about 6,000 pages a second
 * (3,000 read units / half a unit a query) whatever the number of shards; two serve twice that.
 */
export const LIST_INDEX = 'petsById';
/** The key registry's items and nothing else: how the registry is listed, never by a Scan. */
export const KEY_INDEX = 'registeredKeys';
export type IndexName = typeof STATUS_INDEX | typeof STATUS_INDEX_AGAIN | typeof LIST_INDEX | typeof KEY_INDEX;

/**
 * The sets of partitions listings read in turn, each holding every pet (`undefined`: the table's
 * own shards) or every pet of a status: each page reads every shard of one set, so a set serves
 * about 3,000 read units' worth of pages a second, and the sets' number moves that ceiling. A new
 * set is one more index (one write unit more per create); an existing stage takes one new index
 * per deploy (DynamoDB creates one at a time).
 */
export const LISTING_SET_INDEXES = {
  unfiltered: [undefined, LIST_INDEX],
  byStatus: [STATUS_INDEX, STATUS_INDEX_AGAIN],
} as const;

/**
 * How many partitions pets (and each status in the index) are spread over. Chosen from measured
 * figures (docs/scale-and-cost.md): at 8, 4,000 creates a second write 500 units a second to each
 * pet partition and to each shard of `available`, half of DynamoDB's per-partition limit; a page
 * costs 8 small queries. Changing it moves every pet: it is fixed.
 */
export const PET_SHARDS = 8;

/** The key index's partition key and its one value, carried by key items only (which makes the index sparse). */
export const KEY_INDEX_PARTITION = { attribute: 'registry', value: 'keys' } as const;

/**
 * The items by their partition key, written as IAM's `dynamodb:LeadingKeys` patterns (StringLike:
 * `*` stands for any text): what a function's rights name (functions/table.ts).
 */
export const ITEM_PARTITIONS = {
  /** One partition per shard: `PET#<id mod PET_SHARDS>`. */
  pets: 'PET#*',
  /**
   * The release check's pets, apart from every customer's (shared/pets/pet-space.ts): one
   * partition per shard, `RELEASES#PET#<id mod PET_SHARDS>`, which `PET#*` does not match.
   */
  releasePets: 'RELEASES#PET#*',
  /**
   * One partition per key: `APIKEY#<hash>`. (Before, every key was under `APIKEY`, the hash as
   * sort key: that layout is retired with the former pets layout, and no function has a right on
   * it; docs/deploying-and-operating.md, "Upgrading a stage".)
   */
  keyRegistry: 'APIKEY#*',
  /** Requests counted per API key (the operations), a sharded key's shards (`RATE#key#<id>#<n>`) too. */
  keyCounters: 'RATE#key#*',
  /** Requests without a valid key counted per client address (the authorizer). */
  addressCounters: 'RATE#ip#*',
  /** createPet's idempotency records, one partition per record: `IDEMPOTENCY#<keyId>#<client's key>`. */
  idempotencyRecords: 'IDEMPOTENCY#*',
} as const;

export type ItemKind = keyof typeof ITEM_PARTITIONS;

/** A status index's keys and attributes: `petsByStatus` and `petsByStatusAgain` are the same but for their names. */
const statusIndex = (indexName: typeof STATUS_INDEX | typeof STATUS_INDEX_AGAIN): GlobalIndexDefinition => ({
  indexName,
  partitionKey: { name: 'statusShard', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
  projectedAttributes: ['name', 'categoryId'],
});

/** The table of every stage, and of npm start. */
export const tableDefinition: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    statusIndex(STATUS_INDEX),
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
    // Last: a stage's alarms and dashboard list the indexes in this order, the new one after those it had.
    statusIndex(STATUS_INDEX_AGAIN),
  ],
  timeToLiveAttribute: 'expiresAt',
};
