import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from './client';

/**
 * The document client (@aws-sdk/lib-dynamodb: items as plain values), for the key registry, whose
 * items are many and varied: the authorizer and the key mirror use it (the local key tools make
 * their own on their client). The operations' functions do not bundle it
 * (test/infra/function-bundles.test.ts): its marshalling cost them 2 to 3 % of a cold start
 * (docs/performance.md#what-a-cold-start-spends).
 */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** This container's, on its one plain client. */
export const documentClient: DynamoDBDocumentClient = documentClientOf(dynamoDbClient);
