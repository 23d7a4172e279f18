/**
 * The one table, described once. The local start-up and the tests create it from this
 * (local/create-table.ts) and the CDK stack declares it from this (infra/), so keys and
 * indexes cannot drift between them.
 *
 * Single-table layout (`pk` / `sk` are strings):
 *
 * | item            | pk                  | sk                       | other attributes                        |
 * |-----------------|---------------------|--------------------------|-----------------------------------------|
 * | pet             | `PET`               | id, zero-padded to 16    | id, name, categoryId, status, createdAt |
 * | pet id sequence | `SEQUENCE`          | `pet`                    | value (last id handed out)              |
 * | API key         | `APIKEY#<hash>`     | the hash (SHA-256 of the | registry (`keys`), plan, limits,        |
 * |                 |                     | key, hex)                | createdAt; mirrored: apiKeyId,          |
 * |                 |                     |                          | usagePlanId, syncedAt                   |
 * | rate counters   | `RATE#<who>`        | `counters`               | minute/day windows and counts, refusal  |
 * |                 |                     |                          | streak, suspendedUntil, expiresAt (TTL) |
 * | idempotency     | `IDEMPOTENCY#<keyId>| `record`                 | pet (a map: the answer), firstUsedAt,   |
 * | record          | #<client's key>`    |                          | expiresAt (TTL, 24 h after first use)   |
 *
 * All pets share one partition so that "pets in ascending id order" is a single Query that
 * reads only the page it returns; the `byStatus` index does the same per status. It is sparse:
 * only pets carry `status` and `id` (an idempotency record keeps its pet in a map, so it stays out).
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

export const STATUS_INDEX = 'byStatus';
/** The key registry's items and nothing else: how the registry is listed, never by a Scan. */
export const KEY_INDEX = 'registeredKeys';
export type IndexName = typeof STATUS_INDEX | typeof KEY_INDEX;

/** The key index's partition key and its one value, carried by key items only (which makes the index sparse). */
export const KEY_INDEX_PARTITION = { attribute: 'registry', value: 'keys' } as const;

/**
 * The items by their partition key, written as IAM's `dynamodb:LeadingKeys` patterns (StringLike:
 * `*` stands for any text): what a function's rights name (shared/functions.ts).
 */
export const ITEM_PARTITIONS = {
  pets: 'PET',
  idSequence: 'SEQUENCE',
  /** One partition per key: `APIKEY#<hash>`. */
  keyRegistry: 'APIKEY#*',
  /**
   * Where every key was before each had a partition of its own (`APIKEY`, the hash as sort key).
   * No function of this version reads it; the authorizer's role keeps the right to, so that its
   * previous version, still serving while a deploy replaces it (prod's 10 % canary runs for 10
   * minutes), does not fail every lookup. Remove that right once every stage has run this version
   * (docs/deploying-and-operating.md, "Upgrading a stage"). `npm start` moves an older data
   * directory's keys out of it (local/key-layout-upgrade.ts).
   */
  formerKeyRegistry: 'APIKEY',
  /** Requests counted per API key (the operations). */
  keyCounters: 'RATE#key#*',
  /** Requests without a valid key counted per client address (the authorizer). */
  addressCounters: 'RATE#ip#*',
  /** createPet's idempotency records, one partition per record: `IDEMPOTENCY#<keyId>#<client's key>`. */
  idempotencyRecords: 'IDEMPOTENCY#*',
} as const;

export type ItemKind = keyof typeof ITEM_PARTITIONS;

export const tableDefinition: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: STATUS_INDEX,
      partitionKey: { name: 'status', type: 'S' },
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
  ],
  timeToLiveAttribute: 'expiresAt',
};
