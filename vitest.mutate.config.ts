import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The tests `npm run mutate` runs against each mutant (stryker.config.mjs): the files that
 * exercise the core modules it mutates, not the whole suite (the HTTP files that start
 * `npm start`, the stack's synth and the bench's tests never reach them and would only add time).
 */
export const MUTATION_TEST_FILES = [
  'test/unit/authorize.test.ts',
  'test/unit/bearer.test.ts',
  'test/unit/cursor.test.ts',
  'test/unit/cursor-secrets.test.ts',
  'test/unit/name-pattern.test.ts',
  'test/unit/request-text.test.ts',
  'test/unit/schema.test.ts',
  'test/unit/validate-request.test.ts',
  'test/integration/authorizer.test.ts',
  'test/integration/rate-limiter.test.ts',
  'test/integration/suspension-shedding.test.ts',
  'test/integration/pet-repository.test.ts',
  'test/http/authorization-header.test.ts',
  'test/http/errors-and-abuse.test.ts',
  'test/http/idempotent-creates.test.ts',
  'test/http/list-pets.test.ts',
  'test/http/rate-limits.test.ts',
  'test/http/request-validation.test.ts',
  'test/http/sunset.test.ts',
];

// Not mergeConfig: it would add these to the suite's `include` instead of replacing it.
export default defineConfig({ ...base, test: { ...base.test, include: MUTATION_TEST_FILES } });
