import { Tags } from 'aws-cdk-lib';
import { Period, type IRestApi, type Stage, type UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { API_ID_TAG, PER_DAY_TAG, PER_MINUTE_TAG, PLAN_TAG } from '../shared/auth/key-mirror';
import {
  ENTERPRISE_TEMPLATE_LIMITS,
  PLAN_NAMES,
  STANDARD_PLAN_LIMITS,
  type PlanName,
  type RateLimits,
} from '../shared/limits/plans';

/**
 * The usage plans' numbers, derived from the plan table the limiter enforces, with a margin so
 * that the limiter (which sends the exact rate-limit headers and Retry-After) always refuses
 * first and API Gateway only stops floods:
 * - throttle: a steady rate of 1.5 × the per-minute limit spread over 60 s, and a burst of 2 × the
 *   per-minute limit, because fixed minute windows let a client spend one minute's allowance at
 *   0:59 and the next one at 1:00 (capped at API Gateway's default account burst, 5,000, which an
 *   Enterprise customer at the boundary can reach: raise the account limit for such customers);
 * - quota: the daily limit + 50 % (usage plan days, like the limiter's, start at 00:00 UTC). The
 *   margin is wide because API Gateway also counts the requests our limiter refuses: it absorbs a
 *   day of occasional refusals, while a client that floods uses it up and is then stopped at the
 *   edge, before any Lambda runs.
 */
export const USAGE_PLAN_MARGIN = { rate: 1.5, burst: 2, quotaPercent: 50, maxBurst: 5_000 } as const;

export interface UsagePlanNumbers {
  readonly rateLimit: number;
  readonly burstLimit: number;
  readonly quota: number;
}

export function usagePlanNumbers(limits: RateLimits): UsagePlanNumbers {
  return {
    rateLimit: Math.ceil((limits.perMinute / 60) * USAGE_PLAN_MARGIN.rate * 100) / 100,
    burstLimit: Math.min(USAGE_PLAN_MARGIN.maxBurst, Math.ceil(limits.perMinute * USAGE_PLAN_MARGIN.burst)),
    // Integer arithmetic: 100,000 × 1.1 would be 110,000.00000000001 in floating point.
    quota: limits.perDay + Math.ceil((limits.perDay * USAGE_PLAN_MARGIN.quotaPercent) / 100),
  };
}

export function limitsOf(plan: PlanName): RateLimits {
  return plan === 'enterprise' ? ENTERPRISE_TEMPLATE_LIMITS : STANDARD_PLAN_LIMITS[plan];
}

const TITLES: Record<PlanName, string> = { free: 'Free', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

/** One usage plan per plan, bound to the stage and tagged so the key mirror can tell which it is. */
export function addUsagePlans(
  api: IRestApi & { addUsagePlan: (id: string, props: object) => UsagePlan },
  stage: Stage,
  stageName: string,
): Record<PlanName, UsagePlan> {
  const plans = {} as Record<PlanName, UsagePlan>;
  for (const plan of PLAN_NAMES) {
    const limits = limitsOf(plan);
    const numbers = usagePlanNumbers(limits);
    const usagePlan = api.addUsagePlan(`${TITLES[plan]}UsagePlan`, {
      name: `petstore-${stageName}-${plan}`,
      description:
        plan === 'enterprise'
          ? `Template for custom Enterprise plans: copy it per customer, then set throttle, quota and the tags ${PLAN_TAG}, ${API_ID_TAG}, ${PER_MINUTE_TAG} and ${PER_DAY_TAG}.`
          : `${TITLES[plan]}: ${limits.perMinute} requests a minute, ${limits.perDay} a day (enforced by the service; these numbers carry a margin).`,
      throttle: { rateLimit: numbers.rateLimit, burstLimit: numbers.burstLimit },
      quota: { limit: numbers.quota, period: Period.DAY },
      apiStages: [{ api, stage }],
    });
    Tags.of(usagePlan).add(PLAN_TAG, plan);
    // The key mirror may read the keys of a plan so tagged (infra/key-mirror.ts).
    Tags.of(usagePlan).add(API_ID_TAG, api.restApiId);
    if (plan === 'enterprise') {
      Tags.of(usagePlan).add(PER_MINUTE_TAG, String(limits.perMinute));
      Tags.of(usagePlan).add(PER_DAY_TAG, String(limits.perDay));
    }
    plans[plan] = usagePlan;
  }
  return plans;
}
