import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { madeUnlessConditionFails } from '../../../../shared/dynamodb/conditional-write';

/** A conditional write's outcome as a value (its use against DynamoDB Local: test/integration/key-registry-branches.test.ts). */
describe('madeUnlessConditionFails', () => {
  it('is true when the write was made', async () => {
    expect(await madeUnlessConditionFails(Promise.resolve({}))).toBe(true);
  });

  it('is false when its condition did not hold (nothing was written)', async () => {
    expect(
      await madeUnlessConditionFails(
        Promise.reject(
          new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }),
        ),
      ),
    ).toBe(false);
  });

  it('throws any other failure as it came', async () => {
    const throttled = new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} });
    await expect(madeUnlessConditionFails(Promise.reject(throttled))).rejects.toBe(throttled);
  });
});
