import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import {
  AUTHORIZER_RESULT_TTL_SECONDS,
  AUTHORIZER_UNAUTHORIZED,
  type RefusalContext,
} from '../shared/auth/authorizer-contract';
import { now } from '../shared/clock';
import { requestHeaderValues } from '../shared/http/headers';

/**
 * What API Gateway does between the client and an operation's function, for the local server:
 * it runs the REQUEST authorizer (the deployed module) with the event API Gateway would send,
 * caches its answer per identity (the Authorization header and the client address) for the TTL
 * the stack sets, and turns the answer into either the function's `requestContext.authorizer`
 * or the gateway response API Gateway would send instead.
 */
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export type GatewayDecision =
  | { readonly outcome: 'allow'; readonly context: Record<string, string> }
  | { readonly outcome: 'UNAUTHORIZED' | 'AUTHORIZER_CONFIGURATION_ERROR' }
  | { readonly outcome: 'ACCESS_DENIED'; readonly context: Partial<RefusalContext> };

/** API Gateway bounds its cache; so does this. */
const MAX_CACHED = 10_000;

export class LocalAuthorization {
  readonly #cache = new Map<string, { decision: GatewayDecision; expiresAt: number }>();

  constructor(
    private readonly authorizer: AuthorizerHandler,
    private readonly context: () => Context,
  ) {}

  /** The decision for a request that has an Authorization header (without one, API Gateway answers 401 itself). */
  async decide(event: APIGatewayProxyEvent): Promise<GatewayDecision> {
    // Every Authorization value: a request with two never shares a cache entry with one of them alone.
    const identity = `${requestHeaderValues(event.multiValueHeaders, 'authorization').join('\n')}\n${event.requestContext.identity.sourceIp}`;
    const cached = this.#cache.get(identity);
    if (cached !== undefined && cached.expiresAt > now()) return cached.decision;
    this.#cache.delete(identity);

    let result: APIGatewayAuthorizerResult;
    try {
      result = await this.authorizer(authorizerEvent(event), this.context());
    } catch (error) {
      // "Unauthorized" is API Gateway's 401, taken as not cached (unverified: no AWS account was
      // reachable, see docs/keys-and-plans.md); any other error is what API Gateway calls an
      // authorizer configuration error.
      return {
        outcome:
          error instanceof Error && error.message === AUTHORIZER_UNAUTHORIZED
            ? 'UNAUTHORIZED'
            : 'AUTHORIZER_CONFIGURATION_ERROR',
      };
    }
    const decision = toDecision(result);
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(identity, { decision, expiresAt: now() + AUTHORIZER_RESULT_TTL_SECONDS * 1000 });
    return decision;
  }
}

/** The REQUEST authorizer's event: the method request without its body, and the method's ARN. */
function authorizerEvent(event: APIGatewayProxyEvent): APIGatewayRequestAuthorizerEvent {
  const { requestContext } = event;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:${requestContext.apiId}/${requestContext.stage}/${event.httpMethod}${event.path}`,
    resource: event.resource,
    path: requestContext.path,
    httpMethod: event.httpMethod,
    headers: event.headers as Record<string, string>,
    multiValueHeaders: event.multiValueHeaders as Record<string, string[]>,
    pathParameters: event.pathParameters,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    stageVariables: event.stageVariables,
    requestContext: {
      ...requestContext,
      authorizer: undefined,
    } as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

/**
 * An Allow passes its context on to the function (values as strings, with `principalId`, as API
 * Gateway does); a Deny becomes ACCESS_DENIED with its context; anything else is a broken answer.
 */
function toDecision(result: APIGatewayAuthorizerResult): GatewayDecision {
  const effects = new Set(
    (result.policyDocument?.Statement ?? []).map((statement) => (statement as { Effect?: string }).Effect),
  );
  const context: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.context ?? {})) context[name] = String(value);
  if (effects.has('Deny')) return { outcome: 'ACCESS_DENIED', context };
  if (effects.has('Allow') && typeof result.principalId === 'string')
    return { outcome: 'allow', context: { principalId: result.principalId, ...context } };
  return { outcome: 'AUTHORIZER_CONFIGURATION_ERROR' };
}
