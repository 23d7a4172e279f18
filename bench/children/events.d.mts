import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** What one request of a bench case sends: plain JSON, so that run.ts can hand it to the children. */
export type EventSpec = RequestEventSpec | AuthorizerEventSpec;

/** A request to an operation, as API Gateway passes it on once the authorizer allowed the key. */
export interface RequestEventSpec {
  readonly type: 'request';
  readonly method: string;
  /** The route below the stage (API Gateway's `resource`); `{name}` is a path parameter. */
  readonly resource: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Sent as JSON; `{n}` in its strings stands for a number of the request's own. */
  readonly body?: unknown;
  /** Sent as written instead of `body` (bench/body-shapes.ts: bodies JSON.stringify would not write), with the JSON media type. */
  readonly bodyText?: string;
  /** Each request with a fresh Idempotency-Key (its first use). */
  readonly freshIdempotencyKey?: boolean;
  /** Reached without the authorizer: no Authorization header and no authorizer context (a 401). */
  readonly withoutAuthorizer?: boolean;
}

/** API Gateway's REQUEST authorizer event for a method request. */
export interface AuthorizerEventSpec {
  readonly type: 'authorizer';
  readonly method: string;
  readonly resource: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** The bench's key (registered), or a key nobody registered, new each request. */
  readonly key: 'bench' | 'unknown';
  /** From an address that has used up its allowance of requests without a valid key (the parity test fills it). */
  readonly fromRefusedAddress?: boolean;
}

/**
 * What a case's setup made for one request (bench/setups.ts), filled into its spec: path
 * parameters (a fresh pet's id) and query parameters over the spec's own. Plain JSON, as a spec.
 */
export interface SetupFill {
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
}

export function withFill<Spec extends EventSpec>(spec: Spec, fill: SetupFill | undefined): Spec;
export function poolOf(fills: readonly SetupFill[], name: string): { take(): SetupFill; readonly taken: number };
export const END_TO_END: { readonly warmUp: number; readonly block: number };
export function endToEndRequests(iterations: number): number;
export const REFUSED_ADDRESS: string;
export const BENCH_LIMITS: { perMinute: number; perDay: number };
export const INVOCATION_MS: number;
export function lambdaContext(): Context;
export function pathOf(spec: {
  readonly resource: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
}): string;
export function bodyOf(spec: RequestEventSpec, n: number | string): string | null;
export function eventOf(spec: EventSpec, options: { key: string }): APIGatewayProxyEvent;
export function invoke(
  handler: (event: never, context: Context) => Promise<unknown>,
  event: unknown,
  context: Context,
): Promise<APIGatewayProxyResult>;
export function percentile(sorted: readonly number[], p: number): number;
