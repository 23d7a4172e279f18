/**
 * The shapes of the pet store interface: the single source of truth for request validation,
 * the TypeScript types and the OpenAPI document. Each operation's request lives in a module of
 * its own (list-pets-query.ts, new-pet.ts, pet-id-path.ts). The functions validate with checks
 * generated from these (`npm run generate`: functions/<operationId>/request-checks.generated.ts), which build
 * no schema at a cold start and give zod's answers (test/codegen/operation-request-checks.test.ts: to every generated request);
 * this module gathers the schemas for the interface description and the tests. No function imports it.
 */
export * from './fields';
export * from './identifier';
export * from './pet-status';
export * from './no-query';
export * from './list-pets-query';
export * from './new-pet';
export * from './pet-id-path';
export * from './pet';
export { IdempotencyKeyHeader } from './idempotency-key-header';
