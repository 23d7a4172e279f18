import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { testDatabase } from './database';

/**
 * Runs before each test file, before it imports anything: points the shared config at the run's
 * DynamoDB Local and at a table of this file's own, created from the shared table definition and
 * holding the demo keys, so files never see each other's pets.
 */
process.env.DYNAMODB_ENDPOINT = inject('dynamoDbEndpoint');
process.env.TABLE_NAME = `pets-${randomUUID()}`;
await testDatabase().prepare();
