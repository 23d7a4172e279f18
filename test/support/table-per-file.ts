import { randomUUID } from 'node:crypto';
import { beforeEach, inject } from 'vitest';
import { testDatabase } from './database';

/**
 * Runs before each test file, before it imports anything: points the shared config at the run's
 * DynamoDB Local and at a table of this file's own, created from the shared table definition and
 * holding the demo keys, so files never see each other's pets.
 */
process.env.DYNAMODB_ENDPOINT = inject('dynamoDbEndpoint');
process.env.TABLE_NAME = `pets-${randomUUID()}`;
// A failed set-up fails each test of the file with its cause, rather than failing the file before
// any test exists: StrykerJS counts only tests, so a mutant that breaks the set-up (the key
// registry's, which writes the demo keys) would otherwise survive with no test run. A file's own
// top-level beforeAll runs before this beforeEach, and its failure skips the tests: the cause is
// printed here too, so that it is never lost.
const setUpFailure = await testDatabase()
  .prepare()
  .then(
    () => undefined,
    (error: unknown) => {
      console.error(`The set-up of this test file (its table and the demo keys) failed:`, error);
      return { error };
    },
  );
beforeEach(() => {
  if (setUpFailure !== undefined) throw setUpFailure.error;
});
