/**
 * The table of functions: every Lambda function of a stage, the operations, each declared in
 * functions/<operationId>/operation.ts (gathered by `npm run generate` into
 * functions/operations.generated.ts), and the functions that serve no operation, declared below. From this table follow the stack (each function, its role's
 * rights, its routes, metrics, alarms and release: infra/), the local server (routes, handler
 * modules, and the check that refuses a DynamoDB request outside the caller's rights:
 * local/dynamodb-rights.ts), the interface description (openapi/) and the bench (bench/). No
 * function bundles it: a function reads its route from shared/http/operation-routes.generated.ts.
 * Adding an operation: docs/adding-an-operation.md.
 */
import { KEY_INDEX } from '../shared/dynamodb/table-definition';
import type { FunctionDeclaration, Route } from '../shared/function-declaration';
import { DOCUMENTATION_ROUTES } from '../shared/http/documentation-routes';
import { OPERATION_DECLARATIONS } from './operations.generated';

export type { DataAccess, DynamoDbAction, FunctionDeclaration, Route, SecretName } from '../shared/function-declaration';
export type { OperationDeclaration } from './operation-declaration';
export { DOCUMENTATION_ROUTES };

type Declarations = typeof OPERATION_DECLARATIONS;

/**
 * The operations of the interface, by operationId (the domain and the HTTP layer name them so):
 * each one's declaration (functions/<operationId>/operation.ts, gathered by `npm run generate`),
 * and its handler beside it.
 */
export const OPERATIONS: { readonly [Id in keyof Declarations]: Declarations[Id] & { readonly handler: `functions/${Id}/handler.ts` } } = /* @__PURE__ */ Object.fromEntries(
  Object.entries(OPERATION_DECLARATIONS).map(([operationId, declaration]) => [operationId, { ...declaration, handler: `functions/${operationId}/handler.ts` }]),
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
      // formerKeyRegistry: for the previous version while a deploy replaces it (table-definition.ts).
      { actions: ['GetItem'], items: ['keyRegistry', 'formerKeyRegistry'] },
      { actions: ['UpdateItem'], items: ['addressCounters'] },
    ],
  },
  /** The interface description and its reference page, served without a key. */
  apiDocs: {
    handler: 'functions/apiDocs/handler.ts',
    dynamodb: [],
    routes: DOCUMENTATION_ROUTES,
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
} as const satisfies Record<string, FunctionDeclaration & { readonly routes?: Record<string, Route> }>;

export const FUNCTIONS: typeof OPERATIONS & typeof SUPPORT_FUNCTIONS = /* @__PURE__ */ Object.assign({}, OPERATIONS, SUPPORT_FUNCTIONS);

export type FunctionName = keyof typeof FUNCTIONS;

export const FUNCTION_NAMES = /* @__PURE__ */ Object.keys(FUNCTIONS) as FunctionName[];
