import { isPlanName, STANDARD_PLAN_LIMITS, type PlanName, type RateLimits } from '../limits/plans';
import { hashApiKey } from './api-key-hash';
import type { KeyRegistry, MirroredKey, RegistryEntry } from './key-registry';

/**
 * The key mirror: copies the API keys and usage plans of one API stage out of API Gateway into
 * the key registry, by the SHA-256 of each key value, so that the request path reads DynamoDB and
 * never API Gateway's management API (about 10 calls a second for the whole account).
 *
 * One run reads everything (usage plans, the keys of each plan of this stage, all API keys), works
 * out what the registry must hold, and writes only the difference: a new or moved key is put, a
 * key no plan of this stage holds any more (removed, deleted, disabled) is deleted. Its management
 * calls depend on the number of plans and keys, never on traffic:
 *   ⌈usage plans / 500⌉ + Σ over this stage's plans ⌈keys of the plan / 500⌉ + ⌈API keys / 500⌉.
 * A run that fails changes nothing it has not finished: the last good copy keeps serving.
 *
 * A usage plan says which plan it is with the tag `petstore:plan`; a custom Enterprise plan says
 * its limits with `petstore:per-minute` and `petstore:per-day` (else they are read from its
 * throttle and daily quota).
 */
export const PLAN_TAG = 'petstore:plan';
export const PER_MINUTE_TAG = 'petstore:per-minute';
export const PER_DAY_TAG = 'petstore:per-day';

/** The CloudWatch metrics of a successful run (the stack alarms when they stop coming). */
export const KEY_MIRROR_METRICS = { namespace: 'PetStore', succeeded: 'KeyMirrorSucceeded', keys: 'MirroredKeys', calls: 'ManagementCalls' } as const;

/** What the mirror reads of API Gateway (infra-free: the SDK side is api-gateway-keys.ts). */
export interface GatewayUsagePlan {
  readonly id: string;
  readonly apiStages: readonly { readonly apiId?: string; readonly stage?: string }[];
  readonly tags: Readonly<Record<string, string>>;
  readonly throttle?: { readonly rateLimit?: number };
  readonly quota?: { readonly limit?: number; readonly period?: string };
}

export interface GatewayApiKey {
  readonly id: string;
  readonly value: string | undefined;
  readonly enabled: boolean;
}

export interface GatewayKeySource {
  usagePlans(): Promise<GatewayUsagePlan[]>;
  usagePlanKeyIds(usagePlanId: string): Promise<string[]>;
  apiKeys(): Promise<GatewayApiKey[]>;
  /** Management calls made so far. */
  readonly calls: number;
}

export interface MirrorTarget {
  readonly apiId: string;
  readonly stage: string;
}

export interface MirrorReport {
  readonly usagePlans: number;
  readonly keys: number;
  readonly written: number;
  readonly removed: number;
  readonly managementCalls: number;
  /** Tagged usage plans that were left out, and why (an Enterprise plan without usable limits). */
  readonly problems: readonly string[];
}

/** Registry writes at once: enough to copy thousands of keys in a few seconds on the first run. */
const WRITE_CONCURRENCY = 16;

export async function mirrorKeys(
  source: GatewayKeySource,
  registry: Pick<KeyRegistry, 'entries' | 'putMirrored' | 'removeMirrored'>,
  target: MirrorTarget,
  runStartedAt: number,
): Promise<MirrorReport> {
  const problems: string[] = [];
  const plans: { id: string; plan: PlanName; limits: RateLimits }[] = [];
  for (const usagePlan of await source.usagePlans()) {
    if (!servesStage(usagePlan, target)) continue;
    const plan = usagePlan.tags[PLAN_TAG];
    if (!isPlanName(plan)) continue;
    const limits = plan === 'enterprise' ? enterpriseLimits(usagePlan) : STANDARD_PLAN_LIMITS[plan];
    if (limits === undefined) problems.push(`usage plan ${usagePlan.id}: an enterprise plan needs ${PER_MINUTE_TAG} and ${PER_DAY_TAG} tags (or a throttle and a daily quota)`);
    else plans.push({ id: usagePlan.id, plan, limits });
  }
  // The stack makes four plans for the stage: none means a wrong API id or stage, not "no keys".
  if (plans.length === 0) throw new Error(`no usage plan tagged ${PLAN_TAG} serves ${target.apiId}/${target.stage}: the registry is left as it is`);
  plans.sort((a, b) => a.id.localeCompare(b.id));

  const keyIdsByPlan = new Map<string, string[]>();
  for (const plan of plans) keyIdsByPlan.set(plan.id, await source.usagePlanKeyIds(plan.id));
  const apiKeys = new Map((await source.apiKeys()).map((key) => [key.id, key]));

  const wanted = new Map<string, MirroredKey>();
  for (const plan of plans) {
    for (const apiKeyId of keyIdsByPlan.get(plan.id) ?? []) {
      const apiKey = apiKeys.get(apiKeyId);
      if (apiKey === undefined || !apiKey.enabled || apiKey.value === undefined || apiKey.value === '') continue;
      const keyHash = hashApiKey(apiKey.value);
      // API Gateway allows a key in one plan per stage; should two claim it, the first (by id) wins.
      if (wanted.has(keyHash)) {
        problems.push(`API key ${apiKeyId} is in more than one usage plan of the stage; ${wanted.get(keyHash)?.usagePlanId} applies`);
        continue;
      }
      wanted.set(keyHash, { keyHash, plan: plan.plan, limits: plan.limits, apiKeyId, usagePlanId: plan.id });
    }
  }

  const current = new Map((await registry.entries()).map((entry) => [entry.keyHash, entry]));
  const puts = [...wanted.values()].filter((key) => !sameKey(current.get(key.keyHash), key));
  const removals = [...current.keys()].filter((keyHash) => !wanted.has(keyHash));
  const written = await inBatches(puts, (key) => registry.putMirrored(key, runStartedAt));
  const removed = await inBatches(removals, (keyHash) => registry.removeMirrored(keyHash, runStartedAt));
  return { usagePlans: plans.length, keys: wanted.size, written, removed, managementCalls: source.calls, problems };
}

function servesStage(plan: GatewayUsagePlan, target: MirrorTarget): boolean {
  return plan.apiStages.some((stage) => stage.apiId === target.apiId && stage.stage === target.stage);
}

function enterpriseLimits(plan: GatewayUsagePlan): RateLimits | undefined {
  const fromTag = (name: string) => {
    const value = plan.tags[name];
    return value !== undefined && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : undefined;
  };
  const perMinute = fromTag(PER_MINUTE_TAG) ?? (plan.throttle?.rateLimit ? Math.floor(plan.throttle.rateLimit * 60) : undefined);
  const perDay = fromTag(PER_DAY_TAG) ?? (plan.quota?.period === 'DAY' ? plan.quota.limit : undefined);
  return perMinute && perDay ? { perMinute, perDay } : undefined;
}

function sameKey(entry: RegistryEntry | undefined, key: MirroredKey): boolean {
  return (
    entry !== undefined &&
    entry.plan === key.plan &&
    entry.limits.perMinute === key.limits.perMinute &&
    entry.limits.perDay === key.limits.perDay &&
    entry.apiKeyId === key.apiKeyId &&
    entry.usagePlanId === key.usagePlanId
  );
}

/** Runs the writes a few at a time; counts those that took effect. */
async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<boolean>): Promise<number> {
  let done = 0;
  for (let i = 0; i < items.length; i += WRITE_CONCURRENCY) {
    const results = await Promise.all(items.slice(i, i + WRITE_CONCURRENCY).map(write));
    done += results.filter(Boolean).length;
  }
  return done;
}
