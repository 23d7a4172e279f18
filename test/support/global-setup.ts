import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/** One real DynamoDB Local for the whole run: in memory, on a free port, always stopped. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', database.endpoint);
  return () => database.stop();
}
