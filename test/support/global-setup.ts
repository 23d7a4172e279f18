import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

interface Shared {
  readonly database: Promise<RunningDynamoDbLocal>;
  users: number;
}

/**
 * Where the one DynamoDB Local lives while any project uses it: on globalThis, since vitest loads
 * this module once per project (each its own module runner), all in the main process.
 */
const SHARED = Symbol.for('petstore.test.dynamoDbLocal');
const holder = globalThis as { [SHARED]?: Shared };

/**
 * One real DynamoDB Local for the whole run: in memory, on a free port, always stopped. The
 * suite's projects that use it (vitest.config.ts) share the one the first of them starts; the
 * last to end stops it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = holder[SHARED] ?? { database: startDynamoDbLocal(), users: 0 };
  holder[SHARED] = shared;
  shared.users += 1;
  const database = await shared.database;
  project.provide('dynamoDbEndpoint', database.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    if (holder[SHARED] === shared) delete holder[SHARED];
    await database.stop();
  };
}
