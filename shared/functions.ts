/**
 * Every Lambda function of a stage, declared once: the module Lambda runs, where API Gateway routes
 * to it, and what it may touch. From this table follow the stack (each function, its role's rights,
 * its routes, metrics, alarms and release: infra/), the local server (routes, handler modules, and
 * the check that refuses a DynamoDB request outside the caller's rights: local/dynamodb-rights.ts),
 * the interface description (openapi/) and the bench (bench/). Adding an operation starts here:
 * docs/adding-an-operation.md.
 */
import { FORMER_STATUS_INDEX, KEY_INDEX, LIST_INDEX, STATUS_INDEX, type IndexName, type ItemKind } from './dynamodb/table-definition';

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the stage's base path (/v1); `{name}` is a path parameter. */
  readonly path: string;
}

/**
 * The DynamoDB actions a right on items may name (IAM's; a transaction is authorized item by
 * item). Not Scan: a Scan has no partition key, and IAM's `ForAllValues` condition holds for a
 * request without one, so "Scan on pets" would read the whole table: key hashes, counters and all.
 */
export type DynamoDbAction = 'GetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'BatchGetItem' | 'BatchWriteItem';

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
}

export interface OperationDeclaration extends FunctionDeclaration {
  readonly route: Route;
}

/** Every operation counts its key's requests before it answers (the rate limiter, shared/limits/). */
const COUNT_KEY_REQUESTS: DataAccess = { actions: ['UpdateItem'], items: ['keyCounters'] };

/** The operations of the interface, by operationId (the domain and the HTTP layer name them so). */
export const OPERATIONS = {
  listPets: {
    route: { method: 'GET', path: '/pets' },
    handler: 'functions/listPets/handler.ts',
    // The former layout (`formerPets`, FORMER_STATUS_INDEX) is read only while a stage upgrades
    // (table-definition.ts, PetLayout); its rights go in the release after every stage is `current`.
    dynamodb: [
      { actions: ['Query'], items: ['pets', 'formerPets'] },
      { actions: ['Query'], index: STATUS_INDEX },
      { actions: ['Query'], index: LIST_INDEX },
      { actions: ['Query'], index: FORMER_STATUS_INDEX },
      COUNT_KEY_REQUESTS,
    ],
    // Signs and reads page cursors.
    secrets: ['cursor'],
  },
  createPet: {
    route: { method: 'POST', path: '/pets' },
    handler: 'functions/createPet/handler.ts',
    dynamodb: [
      COUNT_KEY_REQUESTS,
      // The former id counter: for the version before the sharded layout while a deploy replaces it (table-definition.ts).
      { actions: ['UpdateItem'], items: ['formerIdCounter'] },
      // With an Idempotency-Key: reads the key's record, then writes pet and record in one transaction.
      // Reads a pet back only when a write's outcome is unknown (shared/pets/pet-writes.ts).
      { actions: ['GetItem'], items: ['idempotencyRecords', 'pets', 'formerPets'] },
      // formerPets: while a stage is `upgrading` (table-definition.ts, PetLayout).
      { actions: ['PutItem'], items: ['pets', 'formerPets', 'idempotencyRecords'] },
    ],
  },
  getPet: {
    route: { method: 'GET', path: '/pets/{petId}' },
    handler: 'functions/getPet/handler.ts',
    // formerPets: while a stage upgrades (table-definition.ts, PetLayout).
    dynamodb: [{ actions: ['GetItem'], items: ['pets', 'formerPets'] }, COUNT_KEY_REQUESTS],
  },
} as const satisfies Record<string, OperationDeclaration>;

export type OperationId = keyof typeof OPERATIONS;

/** Every operation's id, in the table's order. */
export const OPERATION_IDS = /* @__PURE__ */ Object.keys(OPERATIONS) as OperationId[];

/** Served without a key by the apiDocs function: the interface description and its reference page (its scripts and styles under /docs/). */
export const DOCUMENTATION_ROUTES = {
  openApiDocument: { method: 'GET', path: '/openapi.json' },
  apiReference: { method: 'GET', path: '/docs' },
  apiReferenceAsset: { method: 'GET', path: '/docs/{asset}' },
} as const satisfies Record<string, Route>;

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
} as const satisfies Record<string, FunctionDeclaration & { readonly routes?: Record<string, Route> }>;

export const FUNCTIONS: typeof OPERATIONS & typeof SUPPORT_FUNCTIONS = /* @__PURE__ */ Object.assign({}, OPERATIONS, SUPPORT_FUNCTIONS);

export type FunctionName = keyof typeof FUNCTIONS;

export const FUNCTION_NAMES = /* @__PURE__ */ Object.keys(FUNCTIONS) as FunctionName[];
