/**
 * The shapes of the pet store interface: the single source of truth for request validation,
 * the TypeScript types and the OpenAPI document. Each operation's request lives in a module of
 * its own (list-pets-query.ts, new-pet.ts, pet-id-path.ts), so that a function builds only the
 * schemas it validates with (zod's share of a cold start grows with the schemas, and the kinds of schema, a function builds);
 * this module gathers them for the interface description and the tests. No function imports it.
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
