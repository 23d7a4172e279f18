/**
 * The table of functions: every Lambda function of a stage, the operations, each declared in
 * functions/<operationId>/operation.ts (gathered by `npm run generate` into
 * functions/operations.generated.ts), and the functions that serve no operation, declared below.
 * From this table follow the stack (each function, its role's rights, its routes, metrics, alarms
 * and release: infra/), the local server (routes, handler modules, and the check that refuses a
 * DynamoDB request outside the caller's rights: local/dynamodb-rights.ts), the interface
 * description (openapi/), the bench (bench/) and the release check's probes. No function bundles
 * it: a function reads its route from shared/http/operation-routes.generated.ts, the release check
 * its probes from functions/releaseCheck/probes.generated.ts. Adding an operation:
 * docs/adding-an-operation.md.
 */
import { SWAGGER_UI_FILES } from '../shared/docs/reference-page';
import { KEY_INDEX } from '../shared/dynamodb/table-definition';
import type { FunctionDeclaration, Route } from '../shared/function-declaration';
import { DOCUMENTATION_ROUTES } from '../shared/http/documentation-routes';
import {
  releaseProbesOf,
  type CheckProbe,
  type ProbedFunction,
  type ReleaseProbe,
} from '../shared/release-check/probes';
import { OPERATION_DECLARATIONS } from './operations.generated';

export type {
  DataAccess,
  DynamoDbAction,
  FunctionDeclaration,
  Route,
  SecretName,
} from '../shared/function-declaration';
export type { OperationDeclaration } from './operation-declaration';
export { DOCUMENTATION_ROUTES };

type Declarations = typeof OPERATION_DECLARATIONS;

/**
 * The operations of the interface, by operationId (the domain and the HTTP layer name them so):
 * each one's declaration (functions/<operationId>/operation.ts, gathered by `npm run generate`),
 * and its handler beside it.
 */
export const OPERATIONS: {
  readonly [Id in keyof Declarations]: Declarations[Id] & { readonly handler: `functions/${Id}/handler.ts` };
} = /* @__PURE__ */ Object.fromEntries(
  Object.entries(OPERATION_DECLARATIONS).map(([operationId, declaration]) => [
    operationId,
    { ...declaration, handler: `functions/${operationId}/handler.ts` },
  ]),
) as never;

export type OperationId = keyof typeof OPERATIONS;

/** Every operation's id, in the table's order. */
export const OPERATION_IDS = /* @__PURE__ */ Object.keys(OPERATIONS) as OperationId[];

/** The functions that are not operations: no key of their own to count, no operation's metrics. */
export const SUPPORT_FUNCTIONS = {
  /** API Gateway's REQUEST authorizer: looks keys up by hash, counts requests without a valid key per address. */
  authorizer: {
    handler: 'functions/authorizer/handler.ts',
    dynamodb: [
      { actions: ['GetItem'], items: ['keyRegistry'] },
      { actions: ['UpdateItem'], items: ['addressCounters'] },
    ],
    // A listing with a token no key is: looked up, counted against the check's address, refused.
    releaseProbes: [{ request: { route: OPERATIONS.listPets.route }, sentAs: 'unknownToken', expect: 'refusal' }],
  },
  /** The interface description and its reference page, served without a key. */
  apiDocs: {
    handler: 'functions/apiDocs/handler.ts',
    dynamodb: [],
    routes: DOCUMENTATION_ROUTES,
    // Each route without a caller (no authorizer runs on them), and each file the deploy ships beside
    // the bundle (infra/pet-store-stack.ts, extraFiles).
    releaseProbes: [
      { request: { route: DOCUMENTATION_ROUTES.openApiDocument }, sentAs: 'anonymous', expect: { status: 200 } },
      { request: { route: DOCUMENTATION_ROUTES.apiReference }, sentAs: 'anonymous', expect: { status: 200 } },
      ...SWAGGER_UI_FILES.map(
        (asset): ReleaseProbe => ({
          request: { route: DOCUMENTATION_ROUTES.apiReferenceAsset, pathParameters: { asset } },
          sentAs: 'anonymous',
          expect: { status: 200 },
        }),
      ),
    ],
  },
  /** Copies API Gateway's keys and usage plans into the key registry, on a schedule. */
  keyMirror: {
    handler: 'functions/keyMirror/handler.ts',
    dynamodb: [
      // Lists the registry through the key index, which holds key items alone (not the pets a Scan would read)...
      { actions: ['Query'], index: KEY_INDEX },
      // ...and writes the difference, key by key (conditional writes: it reads no item).
      { actions: ['PutItem', 'DeleteItem'], items: ['keyRegistry'] },
    ],
    readsUsagePlanKeys: true,
  },
  /** CodeDeploy's check before traffic: invokes each new version with synthetic requests and reports; no table, no secret. */
  releaseCheck: { handler: 'functions/releaseCheck/handler.ts', dynamodb: [] },
  /** While a prod release shifts an alias, sends its new version the walk's requests every minute, for its gate (docs/releases.md); no table, no secret. */
  releaseProber: { handler: 'functions/releaseProber/handler.ts', dynamodb: [] },
} as const satisfies Record<string, FunctionDeclaration & { readonly routes?: Record<string, Route> }>;

export const FUNCTIONS: typeof OPERATIONS & typeof SUPPORT_FUNCTIONS = /* @__PURE__ */ Object.assign(
  {},
  OPERATIONS,
  SUPPORT_FUNCTIONS,
);

export type FunctionName = keyof typeof FUNCTIONS;

export const FUNCTION_NAMES = /* @__PURE__ */ Object.keys(FUNCTIONS) as FunctionName[];

/** The functions that declare release probes: every operation, and those support functions that do. */
type Released<Table> = {
  [Name in keyof Table]: Table[Name] extends { readonly releaseProbes: readonly unknown[] } ? Name : never;
}[keyof Table];
export type ReleasedFunction = Released<typeof FUNCTIONS>;

/**
 * The functions released through CodeDeploy behind the check before traffic (infra/releases.ts):
 * those with release probes, in the table's order. The others (the key mirror, the check itself)
 * move their alias at once.
 */
export const RELEASED_FUNCTIONS = /* @__PURE__ */ FUNCTION_NAMES.filter(
  (name): name is ReleasedFunction => (FUNCTIONS[name] as FunctionDeclaration).releaseProbes !== undefined,
);

/**
 * Every probe of the check before traffic, as it sends them: the released functions' declared
 * probes, in the table's order (written out for the check's bundle by `npm run generate`:
 * functions/releaseCheck/probes.generated.ts).
 */
export const RELEASE_PROBES = /* @__PURE__ */ releaseProbesOf(
  FUNCTIONS as Readonly<Record<FunctionName, ProbedFunction>>,
) as readonly CheckProbe<ReleasedFunction>[];
