import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * A conditional write's outcome as a value: true when it was made, false when its condition did
 * not hold (DynamoDB's ConditionalCheckFailedException; nothing was written). Any other failure is
 * thrown as it came (a throttle, a timeout: shared/dynamodb/datastore-errors.ts makes those 503s).
 * The key registry's writes read it so (shared/auth/key-registry.ts: a key registered only if new,
 * moved or revoked only if it exists).
 */
export async function madeUnlessConditionFails(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
