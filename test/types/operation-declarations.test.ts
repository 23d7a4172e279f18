/**
 * Type tests: `declareOperation` (functions/operation-declaration.ts) refuses a malformed
 * declaration at compile time. tsc is what runs these (`npm run typecheck`, part of `npm test`:
 * tsconfig.json includes test/); vitest only runs the calls, which check nothing when they run.
 *
 * Each malformed case is the valid declaration below with one property changed, and its
 * `// @ts-expect-error` stands on the line of that property (a directive covers its next line alone),
 * so no other error can satisfy it; an unused directive is itself an error.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { declareOperation } from '../../functions/operation-declaration';
import { LIST_INDEX } from '../../shared/dynamodb/table-definition';
import { COMMON_ERRORS, COUNT_KEY_REQUESTS } from '../../shared/function-declaration';
import { LIST_PETS_REQUEST } from '../../shared/pets/list-pets-query';
import { Pet } from '../../shared/pets/pet';

const ROUTE = { method: 'GET', path: '/pets' } as const;

/** A valid declaration's parts but its route; every case below takes them, and changes one. */
const ALL_BUT_ROUTE = {
  dynamodb: [
    { actions: ['Query'], items: ['pets', 'releasePets'] },
    { actions: ['Query'], index: LIST_INDEX },
    COUNT_KEY_REQUESTS,
  ],
  secrets: ['cursor'],
  request: LIST_PETS_REQUEST,
  success: { status: 200, body: z.array(Pet), description: 'A page of animals.' },
  errors: COMMON_ERRORS,
  summary: 'List animals',
  description: 'A page of animals.',
  stability: 'experimental',
  bench: {
    main: 'page',
    cases: {
      page: { request: { query: { limit: '20' } }, status: 200, timedWithoutIo: true },
      invalid: { request: { query: { limit: '0' } }, status: 400, timedWithoutIo: true },
    },
  },
  releaseProbes: [{ request: { query: { limit: '1' } }, sentAs: 'checkPrincipal', expect: { status: 200 } }],
} as const;

describe('declareOperation', () => {
  it('takes a valid declaration, and gives it back with its types', () => {
    const valid = declareOperation({ route: ROUTE, ...ALL_BUT_ROUTE });
    expect(valid).toEqual({ route: ROUTE, ...ALL_BUT_ROUTE });
    expectTypeOf(valid.route).toEqualTypeOf<{ readonly method: 'GET'; readonly path: '/pets' }>();
    expectTypeOf(valid.success.status).toEqualTypeOf<200>();
    expectTypeOf(valid.bench.cases.invalid.status).toEqualTypeOf<400>();
  });

  it('takes a declaration written inline, as functions/<operationId>/operation.ts writes it', () => {
    declareOperation({
      route: { method: 'POST', path: '/pets' },
      dynamodb: [{ actions: ['PutItem'], items: ['pets'] }, COUNT_KEY_REQUESTS],
      request: LIST_PETS_REQUEST,
      success: { status: 201, body: Pet, description: 'The animal.' },
      errors: [...COMMON_ERRORS, 409],
      summary: 'Add',
      description: 'Adds.',
      stability: 'beta',
      bench: {
        main: 'add',
        cases: { add: { status: 201, timedWithoutIo: false }, again: { status: 409, timedWithoutIo: false } },
      },
      releaseProbes: [
        { request: {}, sentAs: 'checkPrincipal', expect: { status: 400, code: 'invalid_request' }, note: 'no body' },
        { request: {}, sentAs: 'unknownToken', expect: 'refusal' },
      ],
    });
  });

  it('refuses a declaration without a route', () => {
    // @ts-expect-error: Property 'route' is missing
    declareOperation(ALL_BUT_ROUTE);
  });

  it('refuses a right on items with an action DynamoDB has none of', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: "GetItems" is no DynamoDbAction
      dynamodb: [{ actions: ['GetItems'], items: ['pets'] }, COUNT_KEY_REQUESTS],
    });
  });

  it('refuses Scan on items: a right on items names item actions alone', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: "Scan" is no DynamoDbAction (Scan is a right on an index alone)
      dynamodb: [{ actions: ['Scan'], items: ['pets'] }, COUNT_KEY_REQUESTS],
    });
  });

  it('refuses a right on items of a kind the table has none of', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: "pet" is no ItemKind
      dynamodb: [{ actions: ['Query'], items: ['pet'] }, COUNT_KEY_REQUESTS],
    });
  });

  it('refuses a right on an index the table has none of', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: "petsByName" is no IndexName
      dynamodb: [{ actions: ['Query'], index: 'petsByName' }, COUNT_KEY_REQUESTS],
    });
  });

  it('refuses a secret there is none of', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: "database" is no SecretName
      secrets: ['database'],
    });
  });

  it('refuses an error status the service never answers', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      // @ts-expect-error: 418 is no ErrorStatus
      errors: [...COMMON_ERRORS, 418],
    });
  });

  it('refuses a bench case whose status the declaration does not name (an error status among others, not its errors)', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      bench: {
        main: 'page',
        cases: {
          ...ALL_BUT_ROUTE.bench.cases,
          missing: {
            request: { query: { limit: '20' } },
            // @ts-expect-error: 404 is neither its success (200) nor among its errors
            status: 404,
            timedWithoutIo: false,
          },
        },
      },
    });
  });

  it("refuses a bench case expecting another operation's success status", () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      bench: {
        main: 'page',
        cases: {
          ...ALL_BUT_ROUTE.bench.cases,
          created: {
            request: { query: { limit: '20' } },
            // @ts-expect-error: 201 is neither its success (200) nor among its errors
            status: 201,
            timedWithoutIo: false,
          },
        },
      },
    });
  });

  it('refuses a release probe expecting a status the declaration does not name', () => {
    declareOperation({
      route: ROUTE,
      ...ALL_BUT_ROUTE,
      releaseProbes: [
        {
          request: { query: { limit: '1' } },
          sentAs: 'checkPrincipal',
          expect: {
            // @ts-expect-error: 404 is neither its success (200) nor among its errors
            status: 404,
            code: 'not_found',
          },
        },
      ],
    });
  });
});
