import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * A conditional write's outcome as a value: true when it was made, false when its condition did
 * not hold (DynamoDB's ConditionalCheckFailedException; nothing was written). Any other failure is
 * thrown as it came (a throttle, a timeout: shared/dynamodb/datastore-errors.ts makes those 503s).
 * A delete of an item that must exist, for one: `if (!(await madeUnlessConditionFails(send(...)))) throw new NotFoundError(...)`.
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
