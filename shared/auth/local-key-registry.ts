import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isPlanName, isRateLimits, STANDARD_PLAN_LIMITS, type PlanName, type RateLimits } from '../limits/plans';
import { hashApiKey, keyIdOf } from './api-key-hash';
import type { ApiKeyResolver, Principal } from './principal';

/**
 * The local stand-in for API Gateway's API keys and usage plans: keys live in the table as
 * SHA-256 hashes (`pk = APIKEY`, `sk = hash`) with their plan; the key itself is never stored.
 */
const KEY_PARTITION = 'APIKEY';
const KEY_ID = /^[0-9a-f]{16}$/;

export interface RegisteredKey {
  readonly keyId: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
  readonly createdAt: string;
}

export class LocalKeyRegistry implements ApiKeyResolver {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async resolve(apiKey: string): Promise<Principal | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: KEY_PARTITION, sk: hashApiKey(apiKey) } }),
    );
    const key = Item === undefined ? undefined : toRegisteredKey(Item);
    return key === undefined ? undefined : { keyId: key.keyId, plan: key.plan, limits: key.limits };
  }

  /** Stores a key given by the caller (the documented local demo keys); replaces its plan if present. */
  async register(apiKey: string, plan: PlanName, customLimits?: RateLimits): Promise<RegisteredKey> {
    const keyHash = hashApiKey(apiKey);
    const limits = limitsFor(plan, customLimits);
    const createdAt = new Date().toISOString();
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: { pk: KEY_PARTITION, sk: keyHash, plan, limits, createdAt } }),
    );
    return { keyId: keyIdOf(keyHash), plan, limits, createdAt };
  }

  /** Makes a new random key (192 bits) for a plan; the key is returned once and only its hash is kept. */
  async create(plan: PlanName, customLimits?: RateLimits): Promise<{ apiKey: string; key: RegisteredKey }> {
    const apiKey = `pet_${randomBytes(24).toString('base64url')}`;
    return { apiKey, key: await this.register(apiKey, plan, customLimits) };
  }

  async list(): Promise<RegisteredKey[]> {
    const keys: RegisteredKey[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': KEY_PARTITION },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const key = toRegisteredKey(item);
        if (key !== undefined) keys.push(key);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return keys;
  }

  /** Moves a key (given as the key or its key id) to another plan; undefined when there is no such key. */
  async setPlan(keyOrKeyId: string, plan: PlanName, customLimits?: RateLimits): Promise<RegisteredKey | undefined> {
    const limits = limitsFor(plan, customLimits);
    const hash = await this.#findHash(keyOrKeyId);
    if (hash === undefined) return undefined;
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: KEY_PARTITION, sk: hash },
        UpdateExpression: 'SET #plan = :plan, limits = :limits',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':plan': plan, ':limits': limits },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes === undefined ? undefined : toRegisteredKey(Attributes);
  }

  /** Removes a key given either the key itself or its key id; true when one was removed. */
  async revoke(keyOrKeyId: string): Promise<boolean> {
    const hash = await this.#findHash(keyOrKeyId);
    if (hash === undefined) return false;
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: KEY_PARTITION, sk: hash } }));
    return true;
  }

  async #findHash(keyOrKeyId: string): Promise<string | undefined> {
    const direct = hashApiKey(keyOrKeyId);
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: KEY_PARTITION, sk: direct } }));
    if (Item !== undefined) return direct;
    if (!KEY_ID.test(keyOrKeyId)) return undefined;
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :id)',
        ExpressionAttributeValues: { ':pk': KEY_PARTITION, ':id': keyOrKeyId },
        Limit: 2,
      }),
    );
    // A key id is a hash prefix: refuse to guess if it ever matched two keys.
    return Items.length === 1 ? String(Items[0]?.sk) : undefined;
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

function toRegisteredKey(item: Record<string, unknown>): RegisteredKey | undefined {
  const { sk, plan, limits, createdAt } = item;
  if (typeof sk !== 'string' || !isPlanName(plan) || !isRateLimits(limits)) return undefined;
  return { keyId: keyIdOf(sk), plan, limits, createdAt: String(createdAt) };
}
