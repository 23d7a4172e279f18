import { GetItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { integer, text } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { STATUS_INDEX } from '../dynamodb/table-definition';
import { PET_PARTITION_VALUE, petSortKey, toPet } from './pet-items';
import type { Pet, PetStatus } from './schema';

export interface PageRequest {
  /** Return pets with an id greater than this (0 for the first page). */
  readonly afterId: number;
  readonly limit: number;
  readonly status: PetStatus | undefined;
}

export interface PetPage {
  readonly pets: Pet[];
  /** True when at least one more pet follows the last one returned. */
  readonly hasMore: boolean;
}

/** Reading pets: what getPet and listPets need of the table (their bundles hold no write). */
export interface PetReads {
  get(id: number, deadline?: CallDeadline): Promise<Pet | undefined>;
  list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage>;
}

export class DynamoDbPetReads implements PetReads {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async get(id: number, deadline?: CallDeadline): Promise<Pet | undefined> {
    const { Item } = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: { pk: PET_PARTITION_VALUE, sk: text(petSortKey(id)) }, ConsistentRead: true }),
      { abortSignal: deadline?.signalForCall() },
    );
    return Item === undefined ? undefined : toPet(Item);
  }

  /** One Query that reads at most `limit + 1` items: the page and one more to know if another follows. */
  async list({ afterId, limit, status }: PageRequest, deadline?: CallDeadline): Promise<PetPage> {
    const query =
      status === undefined
        ? new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND sk > :after',
            ExpressionAttributeValues: { ':pk': PET_PARTITION_VALUE, ':after': text(petSortKey(afterId)) },
            Limit: limit + 1,
            ConsistentRead: true,
          })
        : new QueryCommand({
            TableName: this.tableName,
            IndexName: STATUS_INDEX,
            KeyConditionExpression: '#status = :status AND id > :after',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': text(status), ':after': integer(afterId) },
            Limit: limit + 1,
          });
    const { Items = [] } = await this.client.send(query, { abortSignal: deadline?.signalForCall() });
    return { pets: Items.slice(0, limit).map(toPet), hasMore: Items.length > limit };
  }
}
