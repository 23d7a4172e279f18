import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallDeadline } from './call-deadline';
import { ITEM_PARTITIONS } from './table-definition';

/**
 * A named, strictly increasing counter in the table: one atomic `ADD` per value, so values are
 * unique across concurrent callers and Lambda instances and are never handed out twice.
 */
export class Sequence {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {}

  async next(deadline?: CallDeadline): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: ITEM_PARTITIONS.idSequence, sk: this.name },
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: deadline?.signalForCall() },
    );
    const value = Attributes?.value;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new Error(`sequence "${this.name}" returned a value that is not a safe integer`);
    }
    return value;
  }
}
