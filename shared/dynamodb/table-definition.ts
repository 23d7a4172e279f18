/**
 * The one table, described once. The local start-up and the tests create it from this
 * (local/create-table.ts) and the CDK stack declares it from this (infra/), so keys and
 * indexes cannot drift between them.
 *
 * Single-table layout (`pk` / `sk` are strings):
 *
 * | item            | pk           | sk                       | other attributes                       |
 * |-----------------|--------------|--------------------------|----------------------------------------|
 * | pet             | `PET`        | id, zero-padded to 16    | id, name, categoryId, status, createdAt |
 * | pet id sequence | `SEQUENCE`   | `pet`                    | value (last id handed out)             |
 * | local API key   | `APIKEY`     | SHA-256 of the key (hex) | plan, limits, createdAt                |
 * | rate counters   | `RATE#<who>` | `counters`               | minute/day windows and counts, refusal |
 * |                 |              |                          | streak, suspendedUntil, expiresAt (TTL)|
 * | idempotency     | `IDEMPOTENCY#| the client's             | pet (a map: the answer), firstUsedAt,  |
 * | record          | <keyId>`     | Idempotency-Key          | expiresAt (TTL, 24 h after first use)  |
 *
 * All pets share one partition so that "pets in ascending id order" is a single Query that
 * reads only the page it returns; the `byStatus` index does the same per status. It is sparse:
 * only pets carry `status` and `id` (an idempotency record keeps its pet in a map, so it stays out).
 * Items with `expiresAt` are deleted by DynamoDB's TTL some time after it passes; code that
 * reads them checks the time itself.
 */
export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface GlobalIndexDefinition {
  readonly indexName: string;
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

/**
 * The items by their partition key, written as IAM's `dynamodb:LeadingKeys` patterns (StringLike:
 * `*` stands for any text): what a function's rights name (shared/functions.ts).
 */
export const ITEM_PARTITIONS = {
  pets: 'PET',
  idSequence: 'SEQUENCE',
  keyRegistry: 'APIKEY',
  /** Requests counted per API key (the operations). */
  keyCounters: 'RATE#key#*',
  /** Requests without a valid key counted per client address (the authorizer). */
  addressCounters: 'RATE#ip#*',
  /** createPet's idempotency records, one partition per API key. */
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
  ],
  timeToLiveAttribute: 'expiresAt',
};
