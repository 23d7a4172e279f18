import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { KEY_ID_PATTERN } from '../auth/api-key-hash';
import { isoTimestamp, now as serviceClock } from '../clock';
import { integer, numberOf, sameItem, text, type Item } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { DATASTORE_RETRY_AFTER_SECONDS } from '../dynamodb/datastore-errors';
import { Sequence } from '../dynamodb/sequence';
import { IdempotencyInProgressError, ServiceUnavailableError } from '../errors';
import { expiryOf, isLive, replayOf, type IdempotencyKey, type IdempotencyRecord } from './idempotency';
import { petAttributes, petItem, toPet } from './pet-items';
import type { NewPet, Pet } from './schema';

export interface CreateOptions {
  readonly deadline?: CallDeadline | undefined;
  /** Settles when the pet may be written; a rejection stops the create before it writes. */
  readonly beforeWrite?: Promise<unknown> | undefined;
}

/** The pet a create with an idempotency key answers, and whether an earlier request created it. */
export interface CreatedOnce {
  readonly pet: Pet;
  readonly replayed: boolean;
}

/** Writing pets: what createPet needs of the table (its bundle holds no page read). */
export interface PetWrites {
  /** Takes an id and writes the pet, once `beforeWrite` (if given) has resolved. */
  create(pet: NewPet, options?: CreateOptions): Promise<Pet>;
  /**
   * The same, at most once per live key: the pet and the key's record are written in one
   * transaction; a live record of the same create is answered instead, one of another body is a 422.
   */
  createOnce(pet: NewPet, key: IdempotencyKey, options?: CreateOptions): Promise<CreatedOnce>;
}

const IDEMPOTENCY_PARTITION_PREFIX = 'IDEMPOTENCY#';

/**
 * Where the record of a client's key under an API key is: a partition of its own, so that one API
 * key's creates share no partition (none is read or written but by its key). The key id is 16 hex
 * digits (shared/auth/api-key-hash.ts; the authorizer's context is checked against KEY_ID_PATTERN
 * before it becomes the principal), so `IDEMPOTENCY#<keyId>#<client's key>` is unambiguous
 * whatever the client's key holds (`#` included): checked here rather than trusted. At most
 * 12 + 16 + 1 + 255 ASCII bytes, far below DynamoDB's 2,048 for a partition key.
 */
export function idempotencyRecordKey(owner: string, value: string): { pk: string; sk: string } {
  if (!KEY_ID_PATTERN.test(owner)) throw new Error('an idempotency record belongs to a key id (16 hex digits)');
  return { pk: `${IDEMPOTENCY_PARTITION_PREFIX}${owner}#${value}`, sk: 'record' };
}

export class DynamoDbPetWrites implements PetWrites {
  readonly #ids: Sequence;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly now: () => number = serviceClock,
  ) {
    this.#ids = new Sequence(client, tableName, 'pet');
  }

  async create(newPet: NewPet, { deadline, beforeWrite }: CreateOptions = {}): Promise<Pet> {
    // The id is taken while the caller decides; if it decides against the write, the id is a gap.
    const [id] = await Promise.all([this.#ids.next(deadline), beforeWrite]);
    const pet: Pet = { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status };
    const item = petItem(pet, this.now());
    // The condition makes a write that would overwrite an existing pet fail instead.
    try {
      await this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        { abortSignal: deadline?.signalForCall() },
      );
    } catch (error) {
      // When the reply to a write that succeeded is lost, the SDK's retry meets the pet it wrote:
      // the id is this request's alone, so an item equal to ours is ours, and the create succeeded.
      if (!(error instanceof ConditionalCheckFailedException && error.Item !== undefined && sameItem(error.Item, item))) throw error;
    }
    return pet;
  }

  async createOnce(newPet: NewPet, key: IdempotencyKey, { deadline, beforeWrite }: CreateOptions = {}): Promise<CreatedOnce> {
    // Two round trips, as without a key: the record is read while the request is counted and the
    // id taken; then one transaction writes the pet and its record, or neither.
    const { pk, sk } = idempotencyRecordKey(key.owner, key.value);
    const recordKey = { pk: text(pk), sk: text(sk) };
    const [id, found] = await Promise.all([
      this.#ids.next(deadline),
      this.client.send(new GetItemCommand({ TableName: this.tableName, Key: recordKey, ConsistentRead: true }), { abortSignal: deadline?.signalForCall() }),
      beforeWrite,
    ]);
    const nowMs = this.now();
    const recorded = found.Item === undefined ? undefined : toRecord(found.Item);
    // A replay writes nothing; the id taken meanwhile is a gap.
    if (recorded !== undefined && isLive(recorded, nowMs)) return { pet: replayOf(recorded, newPet), replayed: true };

    const pet: Pet = { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status };
    // The pet is kept as a map, so the record has no top-level `status` or `id`: the status index never holds it.
    const record: Item = { ...recordKey, pet: { M: petAttributes(pet) }, expiresAt: integer(expiryOf(nowMs)), firstUsedAt: text(isoTimestamp(nowMs)) };
    try {
      // The SDK gives the transaction a ClientRequestToken that its retries reuse: a retry after a
      // lost reply is answered as the first attempt was, without writing again.
      await this.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: petItem(pet, nowMs), ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Put: {
                TableName: this.tableName,
                Item: record,
                // An expired record may still be there (TTL deletes within days): it is overwritten.
                ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
                ExpressionAttributeValues: { ':now': integer(Math.floor(nowMs / 1000)) },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
        { abortSignal: deadline?.signalForCall() },
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      return settleCancelled(error, id, newPet);
    }
    return { pet, replayed: false };
  }
}

function toRecord(item: Item): IdempotencyRecord {
  return { pet: toPet(item.pet?.M ?? {}), expiresAt: numberOf(item, 'expiresAt') };
}

const THROTTLED_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * A cancelled transaction wrote nothing. Its reasons tell why: the key's live record appeared
 * since it was read (a concurrent request with the key won, or our own attempt whose reply was
 * lost); a transaction on the record still running (its outcome unknown: 409); throttling (503).
 * Any other reason is a fault of ours (500).
 */
function settleCancelled(error: TransactionCanceledException, id: number, request: NewPet): CreatedOnce {
  const reasons = error.CancellationReasons ?? [];
  const onRecord = reasons[1];
  if (onRecord?.Code === 'ConditionalCheckFailed' && onRecord.Item !== undefined) {
    const winner = toRecord(onRecord.Item);
    if (winner.pet.id === id) return { pet: winner.pet, replayed: false };
    return { pet: replayOf(winner, request), replayed: true };
  }
  // A live record without its content (DynamoDB always returns it; reading it again would be a
  // third round trip): like a conflict, the client's retry gets its answer.
  if (onRecord?.Code === 'ConditionalCheckFailed' || reasons.some((reason) => reason.Code === 'TransactionConflict')) {
    throw new IdempotencyInProgressError(DATASTORE_RETRY_AFTER_SECONDS);
  }
  if (reasons.some((reason) => reason.Code !== undefined && THROTTLED_REASONS.has(reason.Code))) {
    throw new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS);
  }
  throw error;
}
