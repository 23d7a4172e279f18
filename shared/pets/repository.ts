import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isoTimestamp } from '../clock';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { Sequence } from '../dynamodb/sequence';
import { STATUS_INDEX } from '../dynamodb/table-definition';
import type { NewPet, Pet, PetStatus } from './schema';

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

/** Where pets are kept. The service knows only this interface. */
export interface PetRepository {
  /** Takes an id and writes the pet, once `beforeWrite` (if given) has resolved. */
  create(pet: NewPet, options?: { deadline?: CallDeadline; beforeWrite?: Promise<unknown> }): Promise<Pet>;
  get(id: number, deadline?: CallDeadline): Promise<Pet | undefined>;
  list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage>;
}

const PET_PARTITION = 'PET';
/** Ids are at most 16 decimal digits (2^53 - 1), so padding to 16 makes string order id order. */
const ID_WIDTH = 16;

export const petSortKey = (id: number): string => String(id).padStart(ID_WIDTH, '0');

interface PetItem extends Pet {
  pk: typeof PET_PARTITION;
  sk: string;
  createdAt: string;
}

export class DynamoDbPetRepository implements PetRepository {
  readonly #ids: Sequence;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#ids = new Sequence(client, tableName, 'pet');
  }

  async create(newPet: NewPet, { deadline, beforeWrite }: { deadline?: CallDeadline; beforeWrite?: Promise<unknown> } = {}): Promise<Pet> {
    // The id is taken while the caller decides; if it decides against the write, the id is a gap.
    const [id] = await Promise.all([this.#ids.next(deadline), beforeWrite]);
    const pet: Pet = { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status };
    const item: PetItem = { pk: PET_PARTITION, sk: petSortKey(id), id, name: pet.name, categoryId: pet.categoryId, status: pet.status, createdAt: isoTimestamp(this.now()) };
    // The condition makes a write that would overwrite an existing pet fail instead.
    try {
      await this.client.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        { abortSignal: deadline?.signalForCall() },
      );
    } catch (error) {
      // When the reply to a write that succeeded is lost, the SDK's retry meets the pet it wrote:
      // the id is this request's alone, so an item equal to ours is ours, and the create succeeded.
      if (!(error instanceof ConditionalCheckFailedException && error.Item !== undefined && sameItem(unmarshall(error.Item), item))) throw error;
    }
    return pet;
  }

  async get(id: number, deadline?: CallDeadline): Promise<Pet | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: PET_PARTITION, sk: petSortKey(id) }, ConsistentRead: true }),
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
            ExpressionAttributeValues: { ':pk': PET_PARTITION, ':after': petSortKey(afterId) },
            Limit: limit + 1,
            ConsistentRead: true,
          })
        : new QueryCommand({
            TableName: this.tableName,
            IndexName: STATUS_INDEX,
            KeyConditionExpression: '#status = :status AND id > :after',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': status, ':after': afterId },
            Limit: limit + 1,
          });
    const { Items = [] } = await this.client.send(query, { abortSignal: deadline?.signalForCall() });
    return { pets: Items.slice(0, limit).map(toPet), hasMore: Items.length > limit };
  }
}

function toPet(item: Record<string, unknown>): Pet {
  const { id, name, categoryId, status } = item as unknown as PetItem;
  return { id, name, categoryId, status };
}

function sameItem(stored: Record<string, unknown>, written: PetItem): boolean {
  const keys = Object.keys(written) as (keyof PetItem)[];
  return Object.keys(stored).length === keys.length && keys.every((key) => stored[key] === written[key]);
}
