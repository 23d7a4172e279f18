import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer';

const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/GET/pets';

describe('the TOKEN authorizer', () => {
  it('hands the bearer key to API Gateway as the usage identifier key, for the whole stage', async () => {
    const result = await handler({ type: 'TOKEN', authorizationToken: 'Bearer pet_abc123', methodArn });
    expect(result.usageIdentifierKey).toBe('pet_abc123');
    expect(result.principalId).toMatch(/^[0-9a-f]{16}$/);
    expect(result.principalId).not.toContain('pet_abc123');
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/*/*' },
    ]);
  });

  it.each(['', 'Basic abc', 'Bearer', 'Bearer a b'])('answers %j with Unauthorized (401)', async (authorizationToken) => {
    await expect(handler({ type: 'TOKEN', authorizationToken, methodArn })).rejects.toThrow(/^Unauthorized$/);
  });
});
