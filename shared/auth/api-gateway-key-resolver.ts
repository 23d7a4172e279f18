import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayClient, UsagePlan } from '@aws-sdk/client-api-gateway';
import { isPlanName, STANDARD_PLAN_LIMITS, type RateLimits } from '../limits/plans';
import { hashApiKey, keyIdOf } from './api-key-hash';
import type { ApiKeyResolver, GatewayKeyContext, Principal } from './principal';

/**
 * The deployed stages' resolver: keys and plans are API Gateway API keys and usage plans, managed
 * in the AWS console. API Gateway has already matched the bearer token to an API key (the
 * authorizer hands it over as the usage identifier key) and passes that key's id; this reads the
 * key and the usage plan it belongs to on this API stage. A key made, revoked or moved in the
 * console takes effect without a deploy (within the cache's 60 s).
 *
 * A usage plan says which plan it is with the tag `petstore:plan`; a custom Enterprise plan says
 * its limits with `petstore:per-minute` and `petstore:per-day` (else they are read from its
 * throttle and daily quota).
 */
export const PLAN_TAG = 'petstore:plan';
export const PER_MINUTE_TAG = 'petstore:per-minute';
export const PER_DAY_TAG = 'petstore:per-day';

/**
 * The API Gateway SDK client and the module it comes from. The functions do not bundle that
 * module (it would weigh on every cold start): it is loaded on the first key to resolve, from the
 * AWS SDK the Lambda runtime ships (see infra/bundling.ts).
 */
export interface ApiGatewayConnection {
  readonly client: APIGatewayClient;
  readonly sdk: Pick<typeof import('@aws-sdk/client-api-gateway'), 'GetApiKeyCommand' | 'GetUsagePlansCommand'>;
}

export class ApiGatewayKeyResolver implements ApiKeyResolver {
  #connection: Promise<ApiGatewayConnection> | undefined;

  constructor(private readonly connect: () => Promise<ApiGatewayConnection>) {}

  async resolve(apiKey: string, gateway?: GatewayKeyContext): Promise<Principal | undefined> {
    const apiKeyId = gateway?.apiKeyId;
    if (apiKeyId === undefined || apiKeyId === '') return undefined;
    this.#connection ??= this.connect().catch((error: unknown) => {
      this.#connection = undefined;
      throw error;
    });
    const { client, sdk } = await this.#connection;
    let key;
    try {
      key = await client.send(new sdk.GetApiKeyCommand({ apiKey: apiKeyId, includeValue: true }));
    } catch (error) {
      if (error instanceof Error && error.name === 'NotFoundException') return undefined;
      throw error;
    }
    if (key.enabled !== true || key.value === undefined || !sameKey(key.value, apiKey)) return undefined;

    const plans: UsagePlan[] = [];
    let position: string | undefined;
    do {
      const page = await client.send(new sdk.GetUsagePlansCommand({ keyId: apiKeyId, position, limit: 100 }));
      plans.push(...(page.items ?? []));
      position = page.position;
    } while (position !== undefined);
    const plan = plans.find((candidate) => servesStage(candidate, gateway) && isPlanName(candidate.tags?.[PLAN_TAG]));
    if (plan === undefined) return undefined;
    const planName = plan.tags?.[PLAN_TAG];
    if (!isPlanName(planName)) return undefined;
    const limits = planName === 'enterprise' ? enterpriseLimits(plan) : STANDARD_PLAN_LIMITS[planName];
    if (limits === undefined) return undefined;
    return { keyId: keyIdOf(hashApiKey(apiKey)), plan: planName, limits };
  }
}

function sameKey(stored: string, given: string): boolean {
  const a = Buffer.from(hashApiKey(stored));
  const b = Buffer.from(hashApiKey(given));
  return timingSafeEqual(a, b);
}

function servesStage(plan: UsagePlan, gateway: GatewayKeyContext | undefined): boolean {
  if (gateway?.apiId === undefined) return true;
  return (plan.apiStages ?? []).some((stage) => stage.apiId === gateway.apiId && (gateway.stage === undefined || stage.stage === gateway.stage));
}

function enterpriseLimits(plan: UsagePlan): RateLimits | undefined {
  const fromTag = (name: string) => {
    const value = plan.tags?.[name];
    return value !== undefined && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : undefined;
  };
  const perMinute = fromTag(PER_MINUTE_TAG) ?? (plan.throttle?.rateLimit ? Math.floor(plan.throttle.rateLimit * 60) : undefined);
  const perDay = fromTag(PER_DAY_TAG) ?? (plan.quota?.period === 'DAY' ? plan.quota.limit : undefined);
  return perMinute && perDay ? { perMinute, perDay } : undefined;
}
