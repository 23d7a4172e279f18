import { STANDARD_PLAN_LIMITS } from './plans';

/**
 * The per-address limits at the edge, in front of API Gateway: in AWS a WAF web ACL
 * (infra/waf.ts), locally its stand-in in the local server (local/web-acl.ts).
 * - Requests without an Authorization header never reach the authorizer (API Gateway refuses
 *   them itself), so they are counted here: the Free per-minute limit per address.
 * - Every request: a flood guard far above any plan, so one address cannot drown the API
 *   whatever keys it holds.
 * Both refuse with EDGE_REFUSAL (shared/http/gateway-responses.ts).
 */
export const EDGE_LIMITS: { readonly withoutAuthorizationPerMinute: number; readonly anyRequestPerMinute: number } = {
  withoutAuthorizationPerMinute: STANDARD_PLAN_LIMITS.free.perMinute,
  anyRequestPerMinute: 20_000,
};
