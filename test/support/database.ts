import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
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
    /** Every pet item in the table, read straight from DynamoDB. */
    async storedPets(): Promise<Record<string, unknown>[]> {
      const items: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': 'PET' },
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return items;
    },
    /**
     * Every idempotency record of an API key (its key id). Each record is a partition of its own
     * (`IDEMPOTENCY#<keyId>#<client's key>`), so no Query finds them all: a Scan of this test
     * file's small table, which the service itself never makes.
     */
    async idempotencyRecordsOf(keyId: string): Promise<Record<string, unknown>[]> {
      const items: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new ScanCommand({
            TableName: tableName,
            FilterExpression: 'begins_with(pk, :prefix)',
            ExpressionAttributeValues: { ':prefix': `IDEMPOTENCY#${keyId}#` },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return items;
    },
  };
}
