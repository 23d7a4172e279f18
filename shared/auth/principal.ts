import type { PlanName, RateLimits } from '../limits/plans';

/** Who is calling, as far as the service needs to know: never the key itself. */
export interface Principal {
  /** A stable, non-secret identifier of the key (a prefix of its SHA-256), safe to log and count by. */
  readonly keyId: string;
  readonly plan: PlanName;
  readonly limits: RateLimits;
}

/**
 * Turns a bearer key into the principal it belongs to, or undefined for a key that is unknown or
 * revoked. Locally this is the key registry in DynamoDB; in AWS, API Gateway's keys and usage plans.
 */
export interface ApiKeyResolver {
  resolve(apiKey: string, gateway?: GatewayKeyContext): Promise<Principal | undefined>;
}

/** What API Gateway says of the request's key (set when the method requires an API key). */
export interface GatewayKeyContext {
  readonly apiKeyId?: string;
  readonly apiId?: string;
  readonly stage?: string;
}
