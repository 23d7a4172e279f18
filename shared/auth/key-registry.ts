import { randomBytes } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { madeUnlessConditionFails } from '../dynamodb/conditional-write';
import { KEY_INDEX, KEY_INDEX_PARTITION } from '../dynamodb/table-definition';
import { isPlanName, isRateLimits, STANDARD_PLAN_LIMITS, type PlanName, type RateLimits } from '../limits/plans';
import { hashApiKey, KEY_ID_PATTERN, keyIdOf } from './api-key-hash';
import { RELEASES_PET_SPACE, type Principal, type ReservedPetSpace } from './principal';

/**
 * The key registry: every API key the service accepts, as an item of the table keyed by the
 * SHA-256 of the key with its plan and limits; the key itself is never stored. The request path
 * (the authorizer) reads it the same way everywhere; what writes it differs: `npm run keys`
 * locally, and in AWS the key mirror, which copies API Gateway's keys and usage plans into it
 * (mirrored items also say which API key and usage plan they come from, and when the mirror wrote
 * them).
 *
 * Each key is a partition of its own (`pk = APIKEY#<hash>`): the authorizer's GetItem of one key,
 * known or not, never shares DynamoDB's per-partition limits with another's, so a flood of unknown
 * tokens cannot throttle the lookups of valid keys. The sort key is the hash again rather than a
 * constant: it is the `registeredKeys` index's sort key too (an index item always carries the
 * table's keys), so the index needs no attribute of its own for it, a key id (a hash prefix) is a
 * `begins_with` on it, and an entry read from the index names its item. Listing the keys is a
 * Query of that index (sparse: only key items carry its partition key), never a Scan of the table
 * and its pets.
 */
const KEY_PARTITION_PREFIX = 'APIKEY#';

/** Where a key's item is, by its hash. */
export const keyItemKey = (keyHash: string): { pk: string; sk: string } => ({
  pk: `${KEY_PARTITION_PREFIX}${keyHash}`,
  sk: keyHash,
});

/** What every key item carries so that the key index holds it. */
const INDEXED = { [KEY_INDEX_PARTITION.attribute]: KEY_INDEX_PARTITION.value };

export interface RegisteredKey {
  readonly keyId: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
  readonly createdAt: string;
}

/** A key as the mirror sees it: by hash, with where in API Gateway it comes from. */
export interface MirroredKey {
  readonly keyHash: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
  readonly apiKeyId: string;
  readonly usagePlanId: string;
  /** The stage's release key alone (the stack names it to the mirror). */
  readonly petSpace?: ReservedPetSpace;
}

export interface RegistryEntry extends Partial<Pick<MirroredKey, 'apiKeyId' | 'usagePlanId' | 'petSpace'>> {
  readonly keyHash: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
  /** When the mirror wrote it (ms since the epoch); absent for keys made by `npm run keys`. */
  readonly syncedAt?: number;
}

export class KeyRegistry {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The principal of a key, or undefined for a key that is unknown or revoked: one GetItem. */
  async resolve(apiKey: string, deadline?: CallDeadline): Promise<Principal | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyItemKey(hashApiKey(apiKey)) }),
      { abortSignal: deadline?.signalForCall() },
    );
    const entry = Item === undefined ? undefined : toEntry(Item);
    if (entry === undefined) return undefined;
    return {
      keyId: keyIdOf(entry.keyHash),
      plan: entry.plan,
      limits: entry.limits,
      ...(entry.petSpace === undefined ? {} : { petSpace: entry.petSpace }),
    };
  }

  /**
   * Stores a key given by the caller (the documented local demo keys; the release drill's key,
   * with its pet space); replaces its plan if present.
   */
  async register(
    apiKey: string,
    plan: PlanName,
    customLimits?: RateLimits,
    petSpace?: ReservedPetSpace,
  ): Promise<RegisteredKey> {
    const keyHash = hashApiKey(apiKey);
    const limits = limitsFor(plan, customLimits);
    const createdAt = new Date().toISOString();
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keyItemKey(keyHash),
          ...INDEXED,
          plan,
          limits,
          createdAt,
          ...(petSpace === undefined ? {} : { petSpace }),
        },
      }),
    );
    return { keyId: keyIdOf(keyHash), plan, limits, createdAt };
  }

  /** Registers a key unless it is there already: a known key keeps its plan, limits and creation time. */
  async registerIfAbsent(apiKey: string, plan: PlanName, customLimits?: RateLimits): Promise<void> {
    const item = {
      ...keyItemKey(hashApiKey(apiKey)),
      ...INDEXED,
      plan,
      limits: limitsFor(plan, customLimits),
      createdAt: new Date().toISOString(),
    };
    await madeUnlessConditionFails(
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      ),
    );
  }

  /** Makes a new random key (192 bits) for a plan; the key is returned once and only its hash is kept. */
  async create(plan: PlanName, customLimits?: RateLimits): Promise<{ apiKey: string; key: RegisteredKey }> {
    const apiKey = `pet_${randomBytes(24).toString('base64url')}`;
    return { apiKey, key: await this.register(apiKey, plan, customLimits) };
  }

  async list(): Promise<RegisteredKey[]> {
    return (await this.#items()).flatMap((item) => {
      const entry = toEntry(item);
      return entry === undefined
        ? []
        : [
            {
              keyId: keyIdOf(entry.keyHash),
              plan: entry.plan,
              limits: entry.limits,
              createdAt: String(item.createdAt),
            },
          ];
    });
  }

  /** Every key, by hash, with what the mirror needs to compare it with API Gateway. */
  async entries(): Promise<RegistryEntry[]> {
    return (await this.#items()).flatMap((item) => {
      const entry = toEntry(item);
      return entry === undefined ? [] : [entry];
    });
  }

  /** Moves a key (given as the key or its key id) to another plan; undefined when there is no such key. */
  async setPlan(keyOrKeyId: string, plan: PlanName, customLimits?: RateLimits): Promise<RegisteredKey | undefined> {
    const limits = limitsFor(plan, customLimits);
    const hash = await this.#findHash(keyOrKeyId);
    if (hash === undefined) return undefined;
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keyItemKey(hash),
        UpdateExpression: 'SET #plan = :plan, limits = :limits',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':plan': plan, ':limits': limits },
        ReturnValues: 'ALL_NEW',
      }),
    );
    // ALL_NEW: the item as updated (no item, no Attributes, reads as no key).
    const item = Attributes ?? {};
    const entry = toEntry(item);
    return entry === undefined
      ? undefined
      : { keyId: keyIdOf(entry.keyHash), plan: entry.plan, limits: entry.limits, createdAt: String(item.createdAt) };
  }

  /** Removes a key given either the key itself or its key id; true when one was removed. */
  async revoke(keyOrKeyId: string): Promise<boolean> {
    const hash = await this.#findHash(keyOrKeyId);
    if (hash === undefined) return false;
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keyItemKey(hash) }));
    return true;
  }

  /**
   * Writes a mirrored key, unless a mirror run that started later has already written it (runs
   * may overlap: the later one read API Gateway later). False when it was left as it was.
   */
  async putMirrored(key: MirroredKey, runStartedAt: number): Promise<boolean> {
    return madeUnlessConditionFails(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keyItemKey(key.keyHash),
            ...INDEXED,
            plan: key.plan,
            limits: key.limits,
            apiKeyId: key.apiKeyId,
            usagePlanId: key.usagePlanId,
            ...(key.petSpace === undefined ? {} : { petSpace: key.petSpace }),
            syncedAt: runStartedAt,
            createdAt: new Date(runStartedAt).toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(syncedAt) OR syncedAt <= :started',
          ExpressionAttributeValues: { ':started': runStartedAt },
        }),
      ),
    );
  }

  /** Removes a key API Gateway no longer holds, unless a later mirror run wrote it meanwhile. */
  async removeMirrored(keyHash: string, runStartedAt: number): Promise<boolean> {
    return madeUnlessConditionFails(
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keyItemKey(keyHash),
          ConditionExpression: 'attribute_not_exists(syncedAt) OR syncedAt <= :started',
          ExpressionAttributeValues: { ':started': runStartedAt },
        }),
      ),
    );
  }

  /**
   * Every key item, from the key index: one partition holding the keys alone (a Scan would read
   * every pet too). The index is eventually consistent, which both its readers can take. The
   * mirror: an entry a moment stale at worst makes it put a key again or remove one already gone
   * (its writes are conditional on syncedAt, as for overlapping runs, and a delete of nothing is
   * nothing), or leave a change to its next run, a minute later. `npm run keys`: a listing may miss
   * a key made a moment before, and a key id found here is read from the table itself (#findHash).
   */
  async #items(startKey?: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const { Items = [], LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KEY_INDEX,
        KeyConditionExpression: '#registry = :registry',
        ExpressionAttributeNames: { '#registry': KEY_INDEX_PARTITION.attribute },
        ExpressionAttributeValues: { ':registry': KEY_INDEX_PARTITION.value },
        ExclusiveStartKey: startKey,
      }),
    );
    // The next page, if DynamoDB stopped at its 1 MB.
    return LastEvaluatedKey === undefined ? Items : [...Items, ...(await this.#items(LastEvaluatedKey))];
  }

  /** The hash of a key given as the key or as its key id, if the registry holds it now. */
  async #findHash(keyOrKeyId: string): Promise<string | undefined> {
    const direct = hashApiKey(keyOrKeyId);
    if (await this.#holds(direct)) return direct;
    if (!KEY_ID_PATTERN.test(keyOrKeyId)) return undefined;
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KEY_INDEX,
        KeyConditionExpression: '#registry = :registry AND begins_with(sk, :id)',
        ExpressionAttributeNames: { '#registry': KEY_INDEX_PARTITION.attribute },
        ExpressionAttributeValues: { ':registry': KEY_INDEX_PARTITION.value, ':id': keyOrKeyId },
        Limit: 2,
      }),
    );
    // A key id is a hash prefix: refuse to guess if it ever matched two keys. The index may lag
    // behind a revoke: the item itself says whether the key is still there.
    const hashes = Items.map((item) => String(item.sk));
    const hash = hashes.length === 1 ? hashes[0] : undefined;
    return hash !== undefined && (await this.#holds(hash)) ? hash : undefined;
  }

  async #holds(keyHash: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keyItemKey(keyHash),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    return Item !== undefined;
  }
}

function limitsFor(plan: PlanName, customLimits: RateLimits | undefined): RateLimits {
  if (plan === 'enterprise') {
    if (customLimits === undefined) throw new Error('an enterprise key needs its own limits');
    return customLimits;
  }
  if (customLimits !== undefined) throw new Error(`only enterprise keys have their own limits, not ${plan} keys`);
  return STANDARD_PLAN_LIMITS[plan];
}

function toEntry(item: Record<string, unknown>): RegistryEntry | undefined {
  const { sk, plan, limits, apiKeyId, usagePlanId, syncedAt, petSpace } = item;
  if (typeof sk !== 'string' || !isPlanName(plan) || !isRateLimits(limits)) return undefined;
  return {
    keyHash: sk,
    plan,
    limits: { perMinute: limits.perMinute, perDay: limits.perDay },
    ...(typeof apiKeyId === 'string' ? { apiKeyId } : {}),
    ...(typeof usagePlanId === 'string' ? { usagePlanId } : {}),
    ...(typeof syncedAt === 'number' ? { syncedAt } : {}),
    ...(petSpace === RELEASES_PET_SPACE ? { petSpace } : {}),
  };
}
