import {
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../support/database';

/**
 * What an idempotent create relies on when a transaction's reply is lost (shared/pets/pet-writes.ts,
 * createOnce): the SDK gives a TransactWriteItems a ClientRequestToken when it sends it, and its
 * retries of that send carry the same one; DynamoDB answers a transaction repeated with the same
 * token (within 10 minutes) as it answered the first, a success, without writing again, whatever
 * its conditions now find. So a retry never meets its own write as a conflict, and the create needs
 * no branch for that case. (The SDK's own retry after a lost reply, through the fault proxy:
 * test/http/idempotent-creates.test.ts, "the reply of the write lost once".)
 */
const db = testDatabase();
beforeAll(() => db.prepare());

const transaction = (id: string, token?: string): TransactWriteItemsCommandInput => ({
  ...(token === undefined ? {} : { ClientRequestToken: token }),
  TransactItems: [
    {
      Put: {
        TableName: db.tableName,
        Item: { pk: { S: `RETRY#${id}` }, sk: { S: 'pet' }, nonce: { S: 'first' } },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: db.tableName,
        Item: { pk: { S: `RETRY#${id}` }, sk: { S: 'record' } },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ],
});

describe('a transaction sent again with its ClientRequestToken (DynamoDB Local)', () => {
  it('succeeds again without writing: the same answer as the first, though its conditions would now fail', async () => {
    await db.client.send(new TransactWriteItemsCommand(transaction('a', 'token-a')));
    await expect(db.client.send(new TransactWriteItemsCommand(transaction('a', 'token-a')))).resolves.toBeDefined();
  });

  it("with another token (another create's transaction) the conditions judge it: cancelled", async () => {
    await db.client.send(new TransactWriteItemsCommand(transaction('c', 'token-c')));
    const error = await db.client
      .send(new TransactWriteItemsCommand(transaction('c', 'token-other')))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'ConditionalCheckFailed',
      'ConditionalCheckFailed',
    ]);
  });
});
