import { DeleteItemCommand, GetItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { sameItem, text, type Item } from '../shared/dynamodb/attribute-values';
import { petItem, petKey, toPet } from '../shared/pets/pet-items';
import type { Pet } from '../shared/pets/schema';
import { FORMER_PET_PARTITION, holdsItemsUnder, LAST_VERSION_WITH_THE_MOVES } from './former-layouts';

/**
 * What is left of the steps that moved a stage's pets from the former layout (all under `PET`,
 * ids from the `SEQUENCE` counter) to the sharded one (`PET#<id mod 8>`): the operator's
 * `npm run pets-upgrade -- check` and `delete-former`, which run with the operator's credentials
 * (no function has a right on the former layout), for a stage that went through the steps and
 * skipped the last, optional one. The steps themselves (retire the counter, copy) are those of
 * the last version that carries them (local/former-layouts.ts, LAST_VERSION_WITH_THE_MOVES;
 * docs/upgrading-pets.md). Each can be run again.
 */

/** Whether the former layout still holds a pet (one read of one item). */
export function hasFormerPets(client: DynamoDBClient, tableName: string): Promise<boolean> {
  return holdsItemsUnder(client, tableName, FORMER_PET_PARTITION);
}

export interface CopyCheck {
  readonly former: number;
  /** Former pets whose copy is missing or differs (by id): empty when the copy is complete. */
  readonly missing: readonly number[];
}

/** Reads every former pet and its copy: the copy must hold the same id, name, category and status. */
export async function checkCopy(client: DynamoDBClient, tableName: string): Promise<CopyCheck> {
  let former = 0;
  const missing: number[] = [];
  for await (const item of formerItems(client, tableName)) {
    former += 1;
    const pet = toPet(item);
    if (!isCopyOf(pet, await shardItemOf(client, tableName, pet.id))) missing.push(pet.id);
  }
  return { former, missing };
}

/** Deletes the former items whose copy checks out: the last step, once no version reads them. Returns how many. */
export async function deleteCopiedFormerPets(client: DynamoDBClient, tableName: string): Promise<number> {
  let deleted = 0;
  for await (const item of formerItems(client, tableName)) {
    const pet = toPet(item);
    if (!isCopyOf(pet, await shardItemOf(client, tableName, pet.id)))
      throw new Error(
        `pet ${pet.id} has no copy in its shard, or another pet is there: run the copy (with ${LAST_VERSION_WITH_THE_MOVES}: docs/upgrading-pets.md) and check first`,
      );
    await client.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: { pk: item.pk as Item[string], sk: item.sk as Item[string] },
      }),
    );
    deleted += 1;
  }
  return deleted;
}

async function shardItemOf(client: DynamoDBClient, tableName: string, id: number): Promise<Item | undefined> {
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: petKey(id), ConsistentRead: true }))).Item;
}

/** Whether a shard's item is the copy of this pet: the same id, name, category and status (its creation time and nonce aside). */
function isCopyOf(pet: Pet, item: Item | undefined): boolean {
  if (item === undefined) return false;
  const { createdAt: _c, nonce: _n, ...fields } = petItem(pet, 0, '');
  const { createdAt: _cc, nonce: _nn, ...copied } = item;
  return sameItem(copied, fields);
}

async function* formerItems(client: DynamoDBClient, tableName: string): AsyncGenerator<Item> {
  let startKey: Item | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': text(FORMER_PET_PARTITION) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}
