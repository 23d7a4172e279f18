import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyItemKey } from '../shared/auth/key-registry';
import { ITEM_PARTITIONS, KEY_INDEX_PARTITION } from '../shared/dynamodb/table-definition';

/** Where every key was before each had a partition of its own. */
const OLD_KEY_PARTITION = ITEM_PARTITIONS.formerKeyRegistry;

/**
 * Moves the keys of a data directory made before each key had a partition of its own (all under
 * `pk = APIKEY`, `sk = <hash>`) to theirs, as they were (plan, limits, creation time): the keys
 * `npm run keys` made there keep working. Run by `npm start` after ensureTable (which adds the key
 * index), before it registers the demo keys. A key already in its new partition is left as it is
 * (a move cut short, then changed); the old item goes either way. Returns how many it moved: 0 on
 * every later start. In AWS the key mirror rewrites the keys instead (docs/deploying-and-operating.md).
 */
export async function moveKeysToTheirPartitions(client: DynamoDBDocumentClient, tableName: string): Promise<number> {
  let moved = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': OLD_KEY_PARTITION }, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    for (const { pk: _old, sk, ...rest } of page.Items ?? []) {
      const item = { ...rest, ...keyItemKey(String(sk)), [KEY_INDEX_PARTITION.attribute]: KEY_INDEX_PARTITION.value };
      try {
        await client.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
        moved += 1;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: OLD_KEY_PARTITION, sk } }));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return moved;
}
