import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { integer, numberOf, text } from './attribute-values';
import type { CallDeadline } from './call-deadline';
import { ITEM_PARTITIONS } from './table-definition';

const ONE = integer(1);

/**
 * A named, strictly increasing counter in the table: one atomic `ADD` per value, so values are
 * unique across concurrent callers and Lambda instances and are never handed out twice.
 */
export class Sequence {
  readonly #key;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {
    this.#key = { pk: text(ITEM_PARTITIONS.idSequence), sk: text(name) };
  }

  async next(deadline?: CallDeadline): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: this.#key,
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': ONE },
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: deadline?.signalForCall() },
    );
    const value = numberOf(Attributes ?? {}, 'value');
    if (!Number.isSafeInteger(value)) {
      throw new Error(`sequence "${this.name}" returned a value that is not a safe integer`);
    }
    return value;
  }
}
