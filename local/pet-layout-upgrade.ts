import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { integer, sameItem, text, textIn, type Item } from '../shared/dynamodb/attribute-values';
import { FORMER_PET_PARTITION, petItem, petKey, toPet } from '../shared/pets/pet-items';
import type { Pet } from '../shared/pets/schema';

/**
 * The steps that move a stage's pets from the former layout (all under `PET`, ids from the
 * `SEQUENCE` counter) to the sharded one (`PET#<id mod 8>`): docs/upgrading-pets.md gives the
 * order, with the deploys around them. Each step is idempotent and can be run again after it was
 * cut short. `npm start` runs them on an older data directory by itself (local/start.ts);
 * `npm run pets-upgrade` runs them on any table, an AWS one included.
 */

/** The retired counter: never deleted (an `ADD` would start it again at 1), set past every id. */
const COUNTER_KEY: Item = { pk: text('SEQUENCE'), sk: text('pet') };
/** 2^53 - 1: the former code's next `ADD` gives 2^53, not a safe integer, and it refuses to create (a 500 it logs). */
const RETIRED = integer(Number.MAX_SAFE_INTEGER);

/**
 * Sets the counter so that the former version can no longer create a pet (it would write the
 * former layout after the copy). Returns the last id it had handed out (0 when there was none, or it was retired before).
 */
export async function retireCounter(client: DynamoDBClient, tableName: string): Promise<number> {
  const { Attributes } = await client.send(
    new PutItemCommand({ TableName: tableName, Item: { ...COUNTER_KEY, value: RETIRED }, ReturnValues: 'ALL_OLD' }),
  );
  const last = Number(Attributes?.value?.N ?? 0);
  // Retired before: the former code's refused creates went on adding past 2^53 - 1.
  return last >= Number.MAX_SAFE_INTEGER ? 0 : last;
}

/** Whether the former layout still holds a pet (one read of one item). */
export async function hasFormerPets(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const { Items = [] } = await client.send(
    new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': text(FORMER_PET_PARTITION) }, Limit: 1, ConsistentRead: true }),
  );
  return Items.length > 0;
}

export interface CopyProgress {
  /** Pets written to their shard by this run. */
  copied: number;
  /** Pets whose copy was already there (an earlier run, cut short). */
  present: number;
  /** Ids whose shard holds another pet (never expected: the two layouts draw from halves of the random bits); left as they are, and `check` fails. */
  conflicts: number[];
}

/**
 * Copies every pet of the former layout to its shard, as it was (id, fields, creation time),
 * page by page in id order. A pet already in its shard is left as it is; the former items stay
 * (readers of both layouts return each pet once) until `deleteCopiedFormerPets`. `afterEach`
 * lets a test stop it part way.
 */
export async function copyFormerPets(client: DynamoDBClient, tableName: string, afterEach: (progress: CopyProgress) => void = () => {}): Promise<CopyProgress> {
  const progress: CopyProgress = { copied: 0, present: 0, conflicts: [] };
  for await (const former of formerItems(client, tableName)) {
    const pet = toPet(former);
    const createdAt = Date.parse(textIn(former, 'createdAt') ?? '');
    const copy = petItem(pet, Number.isNaN(createdAt) ? 0 : createdAt, textIn(former, 'nonce') ?? 'copied');
    try {
      await client.send(new PutItemCommand({ TableName: tableName, Item: copy, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
      progress.copied += 1;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (isCopyOf(pet, error.Item)) progress.present += 1;
      else progress.conflicts.push(pet.id);
    }
    afterEach(progress);
  }
  return progress;
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
    if (!isCopyOf(pet, await shardItemOf(client, tableName, pet.id))) throw new Error(`pet ${pet.id} has no copy in its shard, or another pet is there: run copy and check first`);
    await client.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: item.pk as Item[string], sk: item.sk as Item[string] } }));
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

/**
 * npm start on an older data directory: every step at once (no earlier version runs beside it),
 * the former items deleted once their copies check out. Returns how many pets it moved: 0, after
 * one read, on every later start.
 */
export async function movePetsToTheirShards(client: DynamoDBClient, tableName: string): Promise<number> {
  if (!(await hasFormerPets(client, tableName))) return 0;
  await retireCounter(client, tableName);
  const { copied, present } = await copyFormerPets(client, tableName);
  const { missing } = await checkCopy(client, tableName);
  if (missing.length > 0) throw new Error(`${missing.length} pets of the data directory have no copy in their shard; start again to copy them`);
  await deleteCopiedFormerPets(client, tableName);
  return copied + present;
}
