import { isPlanName, STANDARD_PLAN_LIMITS, type PlanName, type RateLimits } from '../limits/plans';
import { hashApiKey } from './api-key-hash';
import type { KeyRegistry, MirroredKey, RegistryEntry } from './key-registry';
import { RELEASES_PET_SPACE } from './principal';

/**
 * The key mirror: copies the API keys and usage plans of one API stage out of API Gateway into
 * the key registry, by the SHA-256 of each key value, so that the request path reads DynamoDB and
 * never API Gateway's management API (about 10 calls a second for the whole account).
 *
 * One run reads everything (the usage plans, and the keys of each plan of this stage with their
 * values), works out what the registry must hold, and writes only the difference: a new or moved
 * key is put, a key no plan of this stage holds any more (taken out, deleted) is removed. Its
 * management calls depend on the number of plans and keys, never on traffic (each listing costs
 * one call even when empty):
 *   max(1, ⌈usage plans / 500⌉) + Σ over this stage's plans max(1, ⌈keys of the plan / 500⌉).
 * It does not read the region's API key list (`/apikeys`, whose right would also give every key's
 * value): a key disabled in the console stays in the registry while it is in its plan, and API
 * Gateway itself refuses it on every request (INVALID_API_KEY, our 401), before any function runs.
 * A run that fails changes nothing it has not finished: the last good copy keeps serving.
 *
 * A usage plan says which plan it is with the tag `petstore:plan`; a custom Enterprise plan says
 * its limits with `petstore:per-minute` and `petstore:per-day`. Every plan of the stage also
 * carries `petstore:api-id` with the REST API's id: the mirror's IAM right to read a plan's keys
 * (and their values) holds only for plans so tagged, a usage plan's keys inheriting its tags. A
 * plan of the stage that says any of this wrongly is a problem for the operator, not a reason to
 * revoke its keys: its keys keep whatever the registry holds for them, and the run reports it (and
 * does not count as a success). The keys of a plan without the right `petstore:api-id` are not
 * even read.
 */
export const PLAN_TAG = 'petstore:plan';
export const API_ID_TAG = 'petstore:api-id';
export const PER_MINUTE_TAG = 'petstore:per-minute';
export const PER_DAY_TAG = 'petstore:per-day';

/** The CloudWatch metrics of a run, per REST API (the stack alarms when successes stop coming). */
export const KEY_MIRROR_METRICS = {
  namespace: 'PetStore',
  apiIdDimension: 'ApiId',
  succeeded: 'KeyMirrorSucceeded',
  keys: 'MirroredKeys',
  calls: 'ManagementCalls',
} as const;

/** What the mirror reads of API Gateway (infra-free: the SDK side is api-gateway-keys.ts). */
export interface GatewayUsagePlan {
  readonly id: string;
  readonly apiStages: readonly { readonly apiId?: string; readonly stage?: string }[];
  readonly tags: Readonly<Record<string, string>>;
}

/** A key of a usage plan, with its value (hashed at once by the mirror, never kept). */
export interface GatewayPlanKey {
  readonly id: string;
  readonly value: string | undefined;
}

export interface GatewayKeySource {
  usagePlans(): Promise<GatewayUsagePlan[]>;
  usagePlanKeys(usagePlanId: string): Promise<GatewayPlanKey[]>;
  /** Management calls made so far. */
  readonly calls: number;
}

export interface MirrorTarget {
  readonly apiId: string;
  readonly stage: string;
  /** The API Gateway id of the stage's release key: its entry says so (its pets live apart, docs/release-check.md). */
  readonly releaseApiKeyId?: string | undefined;
}

export interface MirrorReport {
  /** Usage plans of the stage whose keys were copied. */
  readonly usagePlans: number;
  readonly keys: number;
  readonly written: number;
  readonly removed: number;
  readonly managementCalls: number;
  /** What the operator must fix in the console: a plan of the stage it could not use, a key in two plans. */
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
  const usable: { id: string; plan: PlanName; limits: RateLimits }[] = [];
  const unusable: string[] = [];
  const unreadable = new Set<string>();
  for (const usagePlan of await source.usagePlans()) {
    if (!servesStage(usagePlan, target)) continue;
    if (usagePlan.tags[API_ID_TAG] !== target.apiId) {
      problems.push(
        `usage plan ${usagePlan.id}: its tag ${API_ID_TAG} must be ${target.apiId} (this API's id) for the mirror to read its keys; they keep what the registry holds for them`,
      );
      unreadable.add(usagePlan.id);
      continue;
    }
    const described = describePlan(usagePlan);
    if (typeof described === 'string') {
      problems.push(`usage plan ${usagePlan.id}: ${described}; its keys keep what the registry holds for them`);
      unusable.push(usagePlan.id);
    } else usable.push({ id: usagePlan.id, ...described });
  }
  // The stack makes four tagged plans for the stage: none means a wrong API id or stage, or tags
  // removed by mistake, not "no keys".
  if (usable.length === 0) {
    if (problems.length > 0)
      throw new Error(
        `no usage plan of ${target.apiId}/${target.stage} is usable (${problems.join('; ')}): the registry is left as it is`,
      );
    throw new Error(
      `no usage plan of ${target.apiId}/${target.stage} is tagged usably with ${PLAN_TAG}: the registry is left as it is`,
    );
  }
  usable.sort((a, b) => a.id.localeCompare(b.id));

  const keysByPlan = new Map<string, GatewayPlanKey[]>();
  for (const id of [...usable.map((plan) => plan.id), ...unusable]) keysByPlan.set(id, await source.usagePlanKeys(id));

  const wanted = new Map<string, MirroredKey>();
  // Keys the run cannot judge keep what the registry holds: by hash (those of unusable plans),
  // or by the API key id the mirror wrote with them (a key whose value did not come).
  const keptHashes = new Set<string>();
  const keptApiKeyIds = new Set<string>();
  for (const id of unusable)
    for (const key of keysByPlan.get(id) ?? []) if (key.value) keptHashes.add(hashApiKey(key.value));
  for (const plan of usable) {
    for (const key of keysByPlan.get(plan.id) ?? []) {
      if (key.value === undefined || key.value === '') {
        problems.push(
          `API key ${key.id} of usage plan ${plan.id} came without its value; it keeps what the registry holds for it`,
        );
        keptApiKeyIds.add(key.id);
        continue;
      }
      const keyHash = hashApiKey(key.value);
      // API Gateway allows a key in one plan per stage; should two claim it, the first (by id) wins.
      if (wanted.has(keyHash)) {
        problems.push(
          `API key ${key.id} is in more than one usage plan of the stage; ${wanted.get(keyHash)?.usagePlanId} applies`,
        );
        continue;
      }
      const petSpace = key.id === target.releaseApiKeyId ? { petSpace: RELEASES_PET_SPACE } : {};
      wanted.set(keyHash, {
        keyHash,
        plan: plan.plan,
        limits: plan.limits,
        apiKeyId: key.id,
        usagePlanId: plan.id,
        ...petSpace,
      });
    }
  }

  const current = await registry.entries();
  const currentByHash = new Map(current.map((entry) => [entry.keyHash, entry]));
  // The release key is written every run (one write a minute): the key index does not project its
  // pet space, so this repairs an entry written without it (a run of the mirror's former version
  // that read the plan just as the stack added the key).
  const puts = [...wanted.values()].filter(
    (key) => key.petSpace !== undefined || !sameKey(currentByHash.get(key.keyHash), key),
  );
  const removals = current
    .filter(
      (entry) =>
        !wanted.has(entry.keyHash) &&
        !keptHashes.has(entry.keyHash) &&
        !(entry.apiKeyId !== undefined && keptApiKeyIds.has(entry.apiKeyId)) &&
        !(entry.usagePlanId !== undefined && unreadable.has(entry.usagePlanId)),
    )
    .map((entry) => entry.keyHash);
  const written = await inBatches(puts, (key) => registry.putMirrored(key, runStartedAt));
  const removed = await inBatches(removals, (keyHash) => registry.removeMirrored(keyHash, runStartedAt));
  return { usagePlans: usable.length, keys: wanted.size, written, removed, managementCalls: source.calls, problems };
}

function servesStage(plan: GatewayUsagePlan, target: MirrorTarget): boolean {
  return plan.apiStages.some((stage) => stage.apiId === target.apiId && stage.stage === target.stage);
}

/** The plan and limits a usage plan's tags say, or what is wrong with them. */
function describePlan(usagePlan: GatewayUsagePlan): { plan: PlanName; limits: RateLimits } | string {
  const plan = usagePlan.tags[PLAN_TAG];
  if (!isPlanName(plan))
    return `its tag ${PLAN_TAG} must be one of free, pro, business, enterprise, but is ${plan === undefined ? 'missing' : JSON.stringify(plan)}`;
  if (plan !== 'enterprise') return { plan, limits: STANDARD_PLAN_LIMITS[plan] };
  // The limits the service enforces; the plan's throttle and quota carry a margin above them, so
  // they are no substitute for these tags.
  const perMinute = positiveCount(usagePlan.tags[PER_MINUTE_TAG]);
  const perDay = positiveCount(usagePlan.tags[PER_DAY_TAG]);
  if (perMinute === undefined || perDay === undefined) {
    return `an enterprise plan needs the tags ${PER_MINUTE_TAG} and ${PER_DAY_TAG}, each a whole number from 1 (digits only)`;
  }
  return { plan, limits: { perMinute, perDay } };
}

const positiveCount = (value: string | undefined): number | undefined =>
  value !== undefined && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : undefined;

/**
 * Whether the registry holds the key as API Gateway has it. Not by its pet space, which the key
 * index does not project (a projection cannot change on a deployed index): the one key that has
 * one is written every run.
 */
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
