/**
 * The plan table: the one place that says how many requests each plan may make. The rate
 * limiter and the API Gateway usage plans are both derived from it.
 */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface RateLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** Enterprise limits are agreed per key; these are the standard plans'. */
export const STANDARD_PLAN_LIMITS: Readonly<Record<Exclude<PlanName, 'enterprise'>, RateLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/**
 * The starting point of a custom Enterprise plan: the Enterprise usage plan of a deployed stage
 * (a template to copy per customer) and the local demo enterprise key.
 */
export const ENTERPRISE_TEMPLATE_LIMITS: RateLimits = { perMinute: 5_000, perDay: 1_000_000 };

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

export function isRateLimits(value: unknown): value is RateLimits {
  if (typeof value !== 'object' || value === null) return false;
  const { perMinute, perDay } = value as Partial<RateLimits>;
  return isPositiveInteger(perMinute) && isPositiveInteger(perDay);
}

const isPositiveInteger = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
