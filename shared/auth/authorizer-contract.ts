import { isPlanName } from '../limits/plans';
import { KEY_ID_PATTERN } from './api-key-hash';
import { RELEASES_PET_SPACE, type Principal } from './principal';

/**
 * What the authorizer and the rest of the request path agree on, in AWS and locally alike.
 *
 * API Gateway caches each authorizer answer per identity (the `Authorization` header and the
 * client address) for this long. It is the one cache in front of the key registry: a plan change
 * reaches requests within the key mirror's cycle plus this, and a refused address is remembered
 * for at most this long.
 */
export const AUTHORIZER_RESULT_TTL_SECONDS = 30;

/** The error message that makes API Gateway answer 401 (gateway response UNAUTHORIZED), exactly. */
export const AUTHORIZER_UNAUTHORIZED = 'Unauthorized';

/**
 * An allowed caller travels to the function in the authorizer's context (API Gateway passes it as
 * `requestContext.authorizer`, values as strings).
 */
export interface PrincipalContext {
  readonly keyId: string;
  readonly plan: string;
  readonly perMinute: string;
  readonly perDay: string;
  /** The release key's principal alone: `releases`. */
  readonly petSpace?: string;
}

export function principalContext(principal: Principal): PrincipalContext {
  return {
    keyId: principal.keyId,
    plan: principal.plan,
    perMinute: String(principal.limits.perMinute),
    perDay: String(principal.limits.perDay),
    ...(principal.petSpace === undefined ? {} : { petSpace: principal.petSpace }),
  };
}

const COUNT = /^[1-9][0-9]{0,15}$/;

/**
 * The principal the authorizer allowed, from `requestContext.authorizer`; undefined when there is
 * no authorizer context at all. A context that is there but malformed is our bug, not the client's.
 */
export function principalFromContext(
  context: Readonly<Record<string, unknown>> | null | undefined,
): Principal | undefined {
  if (context === null || context === undefined || context.keyId === undefined) return undefined;
  const { keyId, plan, petSpace } = context;
  const perMinute = String(context.perMinute);
  const perDay = String(context.perDay);
  if (
    typeof keyId !== 'string' ||
    !KEY_ID_PATTERN.test(keyId) ||
    !isPlanName(plan) ||
    !COUNT.test(perMinute) ||
    !COUNT.test(perDay) ||
    (petSpace !== undefined && petSpace !== RELEASES_PET_SPACE)
  ) {
    throw new Error('the authorizer context does not describe a principal');
  }
  return {
    keyId,
    plan,
    limits: { perMinute: Number(perMinute), perDay: Number(perDay) },
    ...(petSpace === undefined ? {} : { petSpace }),
  };
}

/**
 * A refused address travels to the gateway response (ACCESS_DENIED, a 429) in the context of the
 * authorizer's Deny: API Gateway's gateway responses may map `context.authorizer.<name>` into
 * headers and the body. Names are plain identifiers (mapping expressions allow nothing else);
 * `code` and `message` go into a JSON body as they are, so they never hold a quote or backslash.
 */
export interface RefusalContext {
  readonly code: string;
  readonly message: string;
  readonly retryAfter: string;
  readonly rateLimitLimit: string;
  readonly rateLimitRemaining: string;
  readonly rateLimitReset: string;
  readonly rateLimitPolicy: string;
  readonly rateLimit: string;
}

/** Which header each refusal context value is sent as. */
export const REFUSAL_HEADERS: Readonly<Record<string, keyof RefusalContext>> = {
  'Retry-After': 'retryAfter',
  'X-RateLimit-Limit': 'rateLimitLimit',
  'X-RateLimit-Remaining': 'rateLimitRemaining',
  'X-RateLimit-Reset': 'rateLimitReset',
  'RateLimit-Policy': 'rateLimitPolicy',
  RateLimit: 'rateLimit',
};

/**
 * The stage an authorizer's answer allows, from the method it was asked for: API Gateway caches the
 * answer across the stage's methods, so the Allow names every method of the stage.
 * `arn:aws:execute-api:region:account:api/stage/GET/pets` → `arn:aws:execute-api:region:account:api/stage`.
 */
export function stageArnOf(methodArn: string): string {
  // split gives one element at least: the API's part is always there (an assertion on a bare name, which hides nothing from Stryker).
  const parts = methodArn.split('/');
  return `${parts[0] as string}/${parts[1] ?? ''}`;
}
