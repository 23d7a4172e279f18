import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, QueryCommand, TransactionCanceledException, TransactWriteItemsCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { integer, numberOf, text, type Item } from '../../shared/dynamodb/attribute-values';
import { FORMER_STATUS_INDEX } from '../../shared/dynamodb/table-definition';
import { idempotencyRecordKey } from '../../shared/pets/pet-writes';
import { expiryOf, isLive, replayOf, type IdempotencyKey } from '../../shared/pets/idempotency';
import { petAttributes, petSortKey, toPet } from '../../shared/pets/pet-items';
import type { NewPet, Pet, PetStatus } from '../../shared/pets/schema';

/**
 * The pet code of the version before the sharded layout, as it read and wrote the table (ids from
 * the `SEQUENCE` counter, every pet under `PET`, listed through `byStatus` on `status`, pages read
 * strongly consistent from one partition): what still runs beside the new version while a stage
 * upgrades (prod's canary), for test/integration/pet-layout-upgrade.test.ts.
 */
export class FormerPetStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async #nextId(): Promise<number> {
    const { Attributes = {} } = await this.client.send(
      new UpdateItemCommand({ TableName: this.tableName, Key: { pk: text('SEQUENCE'), sk: text('pet') }, UpdateExpression: 'ADD #value :one', ExpressionAttributeNames: { '#value': 'value' }, ExpressionAttributeValues: { ':one': integer(1) }, ReturnValues: 'UPDATED_NEW' }),
    );
    const value = numberOf(Attributes, 'value');
    if (!Number.isSafeInteger(value)) throw new Error('sequence "pet" returned a value that is not a safe integer');
    return value;
  }

  #item(pet: Pet): Item {
    return { pk: text('PET'), sk: text(petSortKey(pet.id)), ...petAttributes(pet), createdAt: text(new Date().toISOString()) };
  }

  async create(newPet: NewPet): Promise<Pet> {
    const pet = { id: await this.#nextId(), ...newPet };
    await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: this.#item(pet), ConditionExpression: 'attribute_not_exists(pk)' }));
    return pet;
  }

  async createOnce(newPet: NewPet, key: IdempotencyKey): Promise<{ pet: Pet; replayed: boolean }> {
    const { pk, sk } = idempotencyRecordKey(key.owner, key.value);
    const recordKey = { pk: text(pk), sk: text(sk) };
    const [id, found] = await Promise.all([this.#nextId(), this.client.send(new GetItemCommand({ TableName: this.tableName, Key: recordKey, ConsistentRead: true }))]);
    const nowMs = Date.now();
    if (found.Item !== undefined) {
      const record = { pet: toPet(found.Item.pet?.M ?? {}), expiresAt: numberOf(found.Item, 'expiresAt') };
      if (isLive(record, nowMs)) return { pet: replayOf(record, newPet), replayed: true };
    }
    const pet = { id, ...newPet };
    try {
      await this.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: this.#item(pet), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.tableName, Item: { ...recordKey, pet: { M: petAttributes(pet) }, expiresAt: integer(expiryOf(nowMs)), firstUsedAt: text(new Date(nowMs).toISOString()) }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException || error instanceof ConditionalCheckFailedException) throw new Error('the former store does not settle a conflict (the test sends none)');
      throw error;
    }
    return { pet, replayed: false };
  }

  async get(id: number): Promise<Pet | undefined> {
    const { Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: text('PET'), sk: text(petSortKey(id)) }, ConsistentRead: true }));
    return item === undefined ? undefined : toPet(item);
  }

  async list(afterId: number, limit: number, status?: PetStatus): Promise<{ pets: Pet[]; hasMore: boolean }> {
    const { Items = [] } = await this.client.send(
      status === undefined
        ? new QueryCommand({ TableName: this.tableName, KeyConditionExpression: 'pk = :pk AND sk > :after', ExpressionAttributeValues: { ':pk': text('PET'), ':after': text(petSortKey(afterId)) }, Limit: limit + 1, ConsistentRead: true })
        : new QueryCommand({ TableName: this.tableName, IndexName: FORMER_STATUS_INDEX, KeyConditionExpression: '#status = :status AND id > :after', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':status': text(status), ':after': integer(afterId) }, Limit: limit + 1 }),
    );
    return { pets: Items.slice(0, limit).map(toPet), hasMore: Items.length > limit };
  }
}
