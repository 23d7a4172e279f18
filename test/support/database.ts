import { PET_SHARDS } from '../../shared/dynamodb/table-definition';
import { marshall } from '@aws-sdk/util-dynamodb';
import { shardPartition, toPet } from '../../shared/pets/pet-items';
import type { Pet } from '../../shared/pets/schema';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { ensureTable } from '../../local/create-table';
import { DEMO_KEYS } from '../../local/demo-keys';

/** Direct access to this test file's table, for set-up and for asserting what was stored. */
export function testDatabase() {
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;
  const tableName = process.env.TABLE_NAME as string;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const documentClient = DynamoDBDocumentClient.from(client);
  return {
    endpoint,
    tableName,
    client,
    documentClient,
    async prepare(): Promise<void> {
      await ensureTable(client, tableName);
      const registry = new KeyRegistry(documentClient, tableName);
      for (const demo of DEMO_KEYS) await registry.register(demo.apiKey, demo.plan, demo.limits);
    },
    /** Every pet item in the table (each shard's), read straight from DynamoDB. */
    async storedPets(): Promise<Record<string, unknown>[]> {
      const partitions = Array.from({ length: PET_SHARDS }, (_, shard) => shardPartition(shard));
      const items = await Promise.all(
        partitions.map((pk) =>
          everyItem(
            paginateQuery(
              { client: documentClient },
              {
                TableName: tableName,
                KeyConditionExpression: 'pk = :pk',
                ExpressionAttributeValues: { ':pk': pk },
                ConsistentRead: true,
              },
            ),
          ),
        ),
      );
      return items.flat();
    },
    /** Every pet in the table as the service answers it (id, name, categoryId, status). */
    async petsStored(): Promise<Pet[]> {
      return (await this.storedPets()).map((item) => toPet(marshall(item)));
    },
    /**
     * Every idempotency record of an API key (its key id). Each record is a partition of its own
     * (`IDEMPOTENCY#<keyId>#<client's key>`), so no Query finds them all: a Scan of this test
     * file's small table, which the service itself never makes.
     */
    async idempotencyRecordsOf(keyId: string): Promise<Record<string, unknown>[]> {
      return everyItem(
        paginateScan(
          { client: documentClient },
          {
            TableName: tableName,
            FilterExpression: 'begins_with(pk, :prefix)',
            ExpressionAttributeValues: { ':prefix': `IDEMPOTENCY#${keyId}#` },
            ConsistentRead: true,
          },
        ),
      );
    },
  };
}

/** The items of every page the SDK's paginator reads (it follows LastEvaluatedKey). */
async function everyItem(
  pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}
