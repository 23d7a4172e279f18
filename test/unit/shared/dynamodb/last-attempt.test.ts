import { DynamoDBClient, GetItemCommand, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttemptTooLateError, attemptsOnlyUntil } from '../../../../shared/dynamodb/last-attempt';

/** A client whose every attempt is throttled before it leaves (no server): the SDK retries it, at once (its jitter at 0). */
function throttledClient(onAttempt: () => void) {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 3,
  });
  client.middlewareStack.add(
    () => async () => {
      onAttempt();
      throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: { httpStatusCode: 400 } });
    },
    { step: 'deserialize' },
  );
  return client;
}

const command = () => new GetItemCommand({ TableName: 't', Key: { pk: { S: 'PET#1' }, sk: { S: '1' } } });

afterEach(() => vi.restoreAllMocks());

describe('a command whose attempts are bounded in time', () => {
  it('sends every attempt the SDK makes before the bound, the first included', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let attempts = 0;
    const client = throttledClient(() => (attempts += 1));
    await expect(client.send(attemptsOnlyUntil(command(), 1_000, () => 0))).rejects.toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
    expect(attempts).toBe(3);
  });

  it('sends none once the bound has passed: a retry would be late, and says so', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let nowMs = 0;
    let attempts = 0;
    // Each attempt takes 100 ms of the clock: the bound of 150 ms lets two go.
    const client = throttledClient(() => {
      attempts += 1;
      nowMs += 100;
    });
    const refused = client.send(attemptsOnlyUntil(command(), 150, () => nowMs));
    await expect(refused).rejects.toBeInstanceOf(AttemptTooLateError);
    await expect(refused).rejects.toMatchObject({
      name: 'AttemptTooLateError',
      message: 'a retry would be sent too late',
    });
    expect(attempts).toBe(2);
    // Not even the first, past the bound.
    await expect(
      throttledClient(() => (attempts += 1)).send(attemptsOnlyUntil(command(), 150, () => 150)),
    ).rejects.toBeInstanceOf(AttemptTooLateError);
    expect(attempts).toBe(2);
  });
});
