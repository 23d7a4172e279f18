/**
 * What a function's declaration says, and what an operation's adds: its route, its rights, its
 * request's schemas, its answers and how the interface description presents it. Each operation
 * declares itself in functions/<operationId>/operation.ts with `declareOperation`
 * (functions/operation-declaration.ts, which gives the bench's part its type); `npm run generate`
 * finds those files and derives the rest (docs/adding-an-operation.md). Types and constants only:
 * no function bundles this module's values but the few constants it names.
 */
import type * as z from 'zod/mini';
import type { IndexName, ItemKind } from './dynamodb/table-definition';
import type { Deprecation } from './http/deprecation';
import type { Route } from './http/route';
import type { ReleaseProbe } from './release-check/probes';

export type { Route };

/**
 * The DynamoDB actions a right on items may name (IAM's; a transaction is authorized item by
 * item). Not Scan: a Scan has no partition key, and IAM's `ForAllValues` condition holds for a
 * request without one, so "Scan on pets" would read the whole table: key hashes, counters and all.
 */
export type DynamoDbAction =
  | 'GetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchGetItem'
  | 'BatchWriteItem';

/**
 * One right on the table, as IAM grants it: the actions on the items whose partition keys are all
 * of these kinds (`dynamodb:LeadingKeys`), or the actions on an index (no key condition).
 */
export type DataAccess =
  | { readonly actions: readonly DynamoDbAction[]; readonly items: readonly ItemKind[] }
  | { readonly actions: readonly ('Query' | 'Scan')[]; readonly index: IndexName };

/** The secrets a function may read; the stack passes each one's ARN in its environment. */
export type SecretName = 'cursor';

export interface FunctionDeclaration {
  /** From the project root: the module whose `handler` export Lambda runs. */
  readonly handler: string;
  readonly dynamodb: readonly DataAccess[];
  /** Read with secretsmanager:GetSecretValue, on that secret alone. */
  readonly secrets?: readonly SecretName[];
  /** Reads API Gateway's usage plans and their keys (read-only, scoped in infra/key-mirror.ts). */
  readonly readsUsagePlanKeys?: boolean;
  /**
   * What the release check sends each new version before it takes traffic, and the answers it
   * expects (shared/release-check/probes.ts): a function with probes is released through
   * CodeDeploy behind that check (infra/releases.ts); one without moves its alias at once.
   */
  readonly releaseProbes?: readonly ReleaseProbe[];
}

/** A marker for how settled an operation is (the interface's "stability marker"). */
export type Stability = 'stable' | 'beta' | 'experimental';

/** What the service answers besides an operation's success; each has its words in the interface description (openapi/document.ts). */
export type ErrorStatus = 400 | 401 | 404 | 409 | 410 | 413 | 422 | 429 | 500 | 503;

/** What every operation may answer: a bad request, no valid key, a body too large (the web ACL's, on any route), a limit, our fault, the datastore out of reach. */
export const COMMON_ERRORS = [400, 401, 413, 429, 500, 503] as const satisfies readonly ErrorStatus[];

/** Every operation counts its key's requests before it answers (the rate limiter, shared/limits/). */
export const COUNT_KEY_REQUESTS: DataAccess = { actions: ['UpdateItem'], items: ['keyCounters'] };

/** A request's parts, each a zod schema (strict objects: an unknown member is a 400). */
export interface RequestSchemas {
  readonly query: z.ZodMiniType;
  readonly path?: z.ZodMiniType;
  /** Not strict: a header other than the declared ones is left out; the checks read no other. */
  readonly headers?: z.ZodMiniObject;
  readonly body?: z.ZodMiniType;
}

/** What an operation answers when it succeeds: no body for a 204. */
export type Success =
  | { readonly status: 200 | 201 | 202; readonly body: z.ZodMiniType; readonly description: string }
  | { readonly status: 204; readonly body?: undefined; readonly description: string };

/**
 * An operation, declared once: everything but its handler's code, its domain rule and its baseline
 * twin follows from this. `Bench` is the type of its bench cases, which the bench gives
 * (bench/bench-case.ts; functions/operation-declaration.ts binds it): nothing here reads them.
 */
export interface OperationDeclaration<Bench = unknown> {
  readonly route: Route;
  readonly dynamodb: readonly DataAccess[];
  readonly secrets?: readonly SecretName[];
  /** Its request, from which `npm run generate` writes the function's checks (request-checks.generated.ts beside it). */
  readonly request: RequestSchemas;
  readonly success: Success;
  /** Every other status it answers; the interface description, the docs' tables and the bench's cases follow. */
  readonly errors: readonly ErrorStatus[];
  readonly summary: string;
  readonly description: string;
  readonly stability: Stability;
  /** Deprecated: every answer says so, and from its sunset on it answers 410 (add 410 to `errors`). */
  readonly deprecation?: Deprecation;
  /** Its cases for `npm run bench` and the tests that send every case. */
  readonly bench: Bench;
  /**
   * What the release check sends each new version (docs/release-check.md): at least one request
   * that reaches its datastore call and writes nothing (an id that cannot exist, an invalid body),
   * as the check's principal, with the answer it must give (a status it names above). From its
   * sunset on, a deprecated operation's probes expect 410 `gone` instead.
   */
  readonly releaseProbes: readonly [ReleaseProbe, ...ReleaseProbe[]];
}
