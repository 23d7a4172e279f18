import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/**
 * One real DynamoDB Local for the whole run: in memory, on a free port, always stopped. The
 * suite's projects that use it (vitest.config.ts) share the one the first of them starts; the
 * last to end stops it.
 */
let shared: { readonly database: Promise<RunningDynamoDbLocal>; users: number } | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared ??= { database: startDynamoDbLocal(), users: 0 };
  shared.users += 1;
  const { database: started } = shared;
  const database = await started;
  project.provide('dynamoDbEndpoint', database.endpoint);
  return async () => {
    if (shared === undefined || shared.database !== started) return;
    shared.users -= 1;
    if (shared.users > 0) return;
    shared = undefined;
    await database.stop();
  };
}
