import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type AttributeDefinition,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  tableDefinition,
  type GlobalIndexDefinition,
  type KeyAttribute,
  type TableDefinition,
} from '../shared/dynamodb/table-definition';

/** The CreateTable request for the shared table definition (the CDK stack reads the same definition). */
export function createTableInput(
  tableName: string,
  definition: TableDefinition = tableDefinition,
): CreateTableCommandInput {
  const keyAttributes = [
    definition.partitionKey,
    definition.sortKey,
    ...definition.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributeDefinitions(keyAttributes),
    KeySchema: [
      { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map(indexInput),
  };
}

/** Each attribute once: an index may key on the table's own sort key. */
function attributeDefinitions(keyAttributes: readonly KeyAttribute[]): AttributeDefinition[] {
  const attributes = new Map<string, string>();
  for (const { name, type } of keyAttributes) attributes.set(name, type);
  return [...attributes].map(([AttributeName, AttributeType]) => ({
    AttributeName,
    AttributeType: AttributeType as 'S' | 'N',
  }));
}

function indexInput(index: GlobalIndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projectedAttributes] },
  };
}

/**
 * Creates the table unless it is already there; returns whether it created it. A table already
 * there (a data directory of an earlier version) gets the indexes of the definition it lacks.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  let existing: TableDescription | undefined;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table ?? {};
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  if (existing !== undefined) {
    await addMissingIndexes(client, tableName, existing);
    return false;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
  return true;
}

/** DynamoDB takes one new index per UpdateTable, and builds it before it can be read. */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, table: TableDescription): Promise<void> {
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of tableDefinition.globalSecondaryIndexes.filter((candidate) => !present.has(candidate.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributeDefinitions([index.partitionKey, index.sortKey]),
        GlobalSecondaryIndexUpdates: [{ Create: indexInput(index) }],
      }),
    );
    for (let waited = 0; ; waited += 1) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      const status = Table?.GlobalSecondaryIndexes?.find(
        (candidate) => candidate.IndexName === index.indexName,
      )?.IndexStatus;
      if (status === 'ACTIVE' && Table?.TableStatus === 'ACTIVE') break;
      if (waited >= 600) throw new Error(`the index ${index.indexName} of ${tableName} was not built within a minute`);
      await sleep(100);
    }
  }
}
