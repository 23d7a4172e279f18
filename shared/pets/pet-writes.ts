import {
  ConditionalCheckFailedException,
  type AttributeValue,
  type CancellationReason,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { pause } from '../abortable-pause';
import { KEY_ID_PATTERN } from '../auth/api-key-hash';
import { isoTimestamp, now as serviceClock } from '../clock';
import { integer, numberOf, text, textIn, type Item } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { DATASTORE_RETRY_AFTER_SECONDS, isThrottling } from '../dynamodb/datastore-errors';
import { AttemptTooLateError, attemptsOnlyUntil } from '../dynamodb/last-attempt';
import { IdempotencyInProgressError, ServiceUnavailableError } from '../errors';
import { expiryOf, isLive, replayOf, type IdempotencyKey, type IdempotencyRecord } from './idempotency';
import { drawPetId, YOUNG_ID_MS } from './pet-ids';
import { petAttributes, petItem, toPet } from './pet-items';
import type { PetSpace } from './pet-space';
import type { NewPet, Pet } from './schema';

/** How one pet write goes: by when its calls end, and what it waits for before writing. */
export interface PetWriteOptions {
  readonly deadline?: CallDeadline | undefined;
  /** Settles when the pet may be written; a rejection stops the create before it writes. */
  readonly beforeWrite?: Promise<unknown> | undefined;
}

/** The pet a create with an idempotency key answers, and whether an earlier request created it. */
export interface CreatedOnce {
  readonly pet: Pet;
  readonly replayed: boolean;
}

/**
 * The pet to create, or the promise of it: a request's body is judged only once the request is
 * admitted (shared/http/stack.ts), and what a create may do before (read its key's record) need not
 * wait for it. A rejection stops the create before it writes.
 */
export type PendingPet = NewPet | PromiseLike<NewPet>;

/** Writing pets: what createPet needs of the table (its bundle holds no page read). */
export interface PetWrites {
  /** Once `beforeWrite` (if given) has resolved and the pet is known, draws an id and writes the pet. */
  create(pet: PendingPet, options?: PetWriteOptions): Promise<Pet>;
  /**
   * The same, at most once per live key: the pet and the key's record are written in one
   * transaction; a live record of the same create is answered instead, one of another body is a 422.
   */
  createOnce(pet: PendingPet, key: IdempotencyKey, options?: PetWriteOptions): Promise<CreatedOnce>;
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

/** How a store of pets is set up: the clock, and for tests how ids are drawn. */
export interface PetStoreOptions {
  readonly now?: (() => number) | undefined;
  readonly drawId?: ((nowMs: number) => number) | undefined;
  /** Whose pets (./pet-space.ts): the customers' unless said. */
  readonly space?: PetSpace | undefined;
}

/**
 * A create draws a new id when its id is taken (1 in 4,096 within a millisecond) or its write was
 * throttled once the id is too old to resend (a keyed create's transaction after THROTTLED_PAUSE_MS:
 * the SDK does not resend a cancelled transaction): this many draws at most. A new id is on
 * another shard 7 times in 8, so a throttled shard rarely stops a create.
 */
const MAX_DRAWS = 3;

/**
 * After a transaction throttled on its pet, a keyed create waits up to this long (at random, "full
 * jitter"), as the SDK waits before its first retry after a throttle (2 × its 500 ms base) and so
 * as a plain create waits before it draws again, then draws a new id. The request's deadline cuts
 * the wait short (the next call then fails at once: a 503).
 */
export const THROTTLED_PAUSE_MS = 1_000;

export class DynamoDbPetWrites implements PetWrites {
  readonly #now: () => number;
  readonly #drawId: (nowMs: number) => number;
  readonly #space: PetSpace;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    { now = serviceClock, drawId = (nowMs: number) => drawPetId(nowMs), space = 'customers' }: PetStoreOptions = {},
  ) {
    this.#space = space;
    this.#now = now;
    this.#drawId = drawId;
  }

  async create(pending: PendingPet, { deadline, beforeWrite }: PetWriteOptions = {}): Promise<Pet> {
    await beforeWrite;
    const newPet = await pending;
    return this.#withFreshId(newPet, async (pet, item, nowMs, nonce) => {
      try {
        // The condition makes a write that would overwrite an existing pet fail instead.
        const command = new PutItemCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return (await this.#send(command, { item, nonce, drawnAtMs: nowMs }, deadline)) ? pet : REDRAW;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // When the reply to a write that succeeded is lost, the SDK's retry meets the pet it wrote
        // (its nonce); any other pet there is another create's: draw again.
        return isOurs(error.Item, nonce) ? pet : REDRAW;
      }
    });
  }

  async createOnce(
    pending: PendingPet,
    key: IdempotencyKey,
    { deadline, beforeWrite }: PetWriteOptions = {},
  ): Promise<CreatedOnce> {
    // Two round trips, as without a key: the record is read while the request is counted (and
    // before its body is judged); then one transaction writes the pet and its record, or neither.
    const { pk, sk } = idempotencyRecordKey(key.owner, key.value);
    const recordKey = { pk: text(pk), sk: text(sk) };
    const [found, , newPet] = await Promise.all([
      this.client.send(new GetItemCommand({ TableName: this.tableName, Key: recordKey, ConsistentRead: true }), {
        abortSignal: deadline?.signalForCall(),
      }),
      beforeWrite,
      pending,
    ]);
    const recorded = found.Item === undefined ? undefined : toRecord(found.Item);
    // A replay writes nothing.
    if (recorded !== undefined && isLive(recorded, this.#now()))
      return { pet: replayOf(recorded, newPet), replayed: true };

    return this.#withFreshId(newPet, async (pet, item, nowMs, nonce) => {
      // The pet is kept as a map, so the record has no top-level `statusShard`, `status` or `id`: no index of pets holds it.
      const record: Item = {
        ...recordKey,
        pet: { M: petAttributes(pet) },
        expiresAt: integer(expiryOf(nowMs)),
        firstUsedAt: text(isoTimestamp(nowMs)),
      };
      // The SDK gives the transaction a ClientRequestToken that its retries of this send reuse, and
      // DynamoDB answers a transaction sent again with its token (within 10 minutes) as it answered
      // the first: a retry after a lost reply succeeds without writing again, and never meets its
      // own write as a cancellation (test/integration/transaction-retry.test.ts).
      const command = new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
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
      });
      try {
        return (await this.#send(command, { item, nonce, drawnAtMs: nowMs }, deadline))
          ? { pet, replayed: false }
          : REDRAW;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const settled = settleCancelled(error, newPet);
        if (settled === THROTTLED) {
          await pause(Math.random() * THROTTLED_PAUSE_MS, deadline?.signalForCall(THROTTLED_PAUSE_MS) ?? NEVER);
          return REDRAW;
        }
        return settled;
      }
    });
  }

  /**
   * Draws an id for the pet and lets `write` write it, with its item (the create's nonce in it, given too);
   * `write` answers REDRAW when the id cannot be used (taken, or too old to resend), and a new id
   * is drawn: MAX_DRAWS at most, then a 503.
   */
  async #withFreshId<T>(
    newPet: NewPet,
    write: (pet: Pet, item: Item, nowMs: number, nonce: string) => Promise<T | typeof REDRAW>,
  ): Promise<T> {
    const nonce = newNonce();
    for (let draw = 0; draw < MAX_DRAWS; draw += 1) {
      // The id is drawn when the write is sent, after the request was admitted: ordered by time.
      const nowMs = this.#now();
      const pet: Pet = {
        id: this.#drawId(nowMs),
        name: newPet.name,
        categoryId: newPet.categoryId,
        status: newPet.status,
      };
      const written = await write(pet, petItem(pet, nowMs, nonce, this.#space), nowMs, nonce);
      if (written !== REDRAW) return written;
    }
    throw new ServiceUnavailableError(new Error(`no id written in ${MAX_DRAWS} draws`), DATASTORE_RETRY_AFTER_SECONDS);
  }

  /**
   * Sends a pet's write (alone, or with its record); its attempts only while the id is young
   * (YOUNG_ID_MS). True when the pet was written. Past that: when no attempt went, or DynamoDB
   * refused each for its rate (nothing written), false: the create may draw a new id; when an
   * attempt's outcome is unknown (a timeout, a dropped connection), the pet is read back: ours (its
   * nonce) means it was written, else a 503, as ambiguous as before (the write may still land).
   */
  async #send(
    command: PutItemCommand | TransactWriteItemsCommand,
    { item, nonce, drawnAtMs }: DrawnItem,
    deadline: CallDeadline | undefined,
  ): Promise<boolean> {
    try {
      await this.client.send(attemptsOnlyUntil(command, drawnAtMs + YOUNG_ID_MS, this.#now) as PutItemCommand, {
        abortSignal: deadline?.signalForCall(),
      });
      return true;
    } catch (error) {
      if (!(error instanceof AttemptTooLateError)) throw error;
      if (error.failures.every(isThrottling)) return false;
      const { Item: found } = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { pk: item.pk as Item[string], sk: item.sk as Item[string] },
          ConsistentRead: true,
        }),
        { abortSignal: deadline?.signalForCall() },
      );
      if (isOurs(found, nonce)) return true;
      throw new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS);
    }
  }
}

/** A pet's item as one draw made it. */
interface DrawnItem {
  readonly item: Item;
  /** The create's nonce, in `item`: it tells this create's pet from another's. */
  readonly nonce: string;
  /** When the pet's id was drawn: its write is attempted only while the id is young (YOUNG_ID_MS). */
  readonly drawnAtMs: number;
}

/** The answer of a write whose id cannot be used: draw another. */
const REDRAW = Symbol('draw another id');
/** A keyed create's transaction throttled on its pet's shard: wait, then draw another. */
const THROTTLED = Symbol('throttled on the pet');
/** A signal that never aborts: a wait with no deadline near. */
const NEVER = new AbortController().signal;

/** A stored item (or none) is this create's when it holds its nonce (96 random bits, the request's alone). */
const isOurs = (stored: Item | undefined, nonce: string): boolean => textIn(stored, 'nonce') === nonce;

/** 96 random bits, by which a create tells its own pet item from another create's. */
const newNonce = (): string => randomBytes(12).toString('base64url');

function toRecord(item: Item): IdempotencyRecord {
  // Every record is written with its pet as a map (createOnce).
  return { pet: toPet((item.pet as AttributeValue.MMember).M), expiresAt: numberOf(item, 'expiresAt') };
}

const THROTTLED_REASONS: ReadonlySet<string | undefined> = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);
/** A partition's throughput, which another shard has: not the account's request limit (RequestLimitExceeded), which no id escapes. */
const PARTITION_THROTTLED: ReadonlySet<string | undefined> = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/**
 * A cancelled transaction wrote nothing. Its reasons tell why, one per item in order (the pet, its
 * record), as DynamoDB always gives them: the key's live record appeared since it was read (a
 * concurrent request with the key won: never our own attempt, whose retry DynamoDB answers as it
 * answered the attempt, by its ClientRequestToken), which ALL_OLD returns; a transaction on either
 * item still running (its outcome unknown: 409); another create's pet holding the id (REDRAW: draw
 * again); the pet's shard throttled (THROTTLED: nothing was written, so after a pause a new id,
 * most likely on another shard, is tried, with the record in the same transaction again; a 503
 * after MAX_DRAWS); any other throttling, the record's partition or the account's request limit,
 * which a new id does not escape (503). Any other reason is a fault of ours (500).
 */
function settleCancelled(
  error: TransactionCanceledException,
  request: NewPet,
): CreatedOnce | typeof REDRAW | typeof THROTTLED {
  const reasons = error.CancellationReasons as [CancellationReason, CancellationReason];
  const [onPet, onRecord] = reasons;
  if (onRecord.Code === 'ConditionalCheckFailed')
    return { pet: replayOf(toRecord(onRecord.Item as Item), request), replayed: true };
  if (reasons.some((reason) => reason.Code === 'TransactionConflict'))
    throw new IdempotencyInProgressError(DATASTORE_RETRY_AFTER_SECONDS);
  if (onPet.Code === 'ConditionalCheckFailed') return REDRAW;
  if (PARTITION_THROTTLED.has(onPet.Code)) return THROTTLED;
  if (reasons.some((reason) => THROTTLED_REASONS.has(reason.Code)))
    throw new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS);
  throw error;
}
