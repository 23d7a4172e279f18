import { ENTERPRISE_TEMPLATE_LIMITS, type PlanName, type RateLimits } from '../shared/limits/plans';

/**
 * The documented demo keys of the local run, one per plan. They are registered by `npm start`
 * and by the tests, never in a deployed stage (there, keys are API Gateway API keys).
 */
export interface DemoKey {
  readonly apiKey: string;
  readonly plan: PlanName;
  readonly limits?: RateLimits;
}

export const DEMO_KEYS: readonly DemoKey[] = [
  { apiKey: 'local-free-key', plan: 'free' },
  { apiKey: 'local-pro-key', plan: 'pro' },
  { apiKey: 'local-business-key', plan: 'business' },
  { apiKey: 'local-enterprise-key', plan: 'enterprise', limits: ENTERPRISE_TEMPLATE_LIMITS },
];
