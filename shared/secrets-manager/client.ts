import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config';
import { translateUnavailableErrors } from '../dynamodb/datastore-errors';
import { worstCallMs, type CallBounds } from '../dynamodb/client';

/**
 * The Secrets Manager client of listPets (the only function that reads a secret). A secret is read
 * at a cold start and every few minutes, while a request waits: the bounds are tight (Secrets
 * Manager answers in milliseconds) and there are two attempts, so that one read with all its
 * attempts (4 s at worst) stays well inside the function's 10 s, and inside DynamoDB's worst call
 * (which decides when a request needs an abort signal, shared/dynamodb/call-deadline.ts).
 */
export const SECRET_READ_ATTEMPTS = 2;
export const SECRET_READ_BOUNDS: CallBounds = { connectionTimeoutMs: 500, requestTimeoutMs: 1_000 };
export const WORST_SECRET_READ_MS = worstCallMs(SECRET_READ_BOUNDS, SECRET_READ_ATTEMPTS);

/** `secretsManagerEndpoint` (SECRETS_MANAGER_ENDPOINT): a stand-in on loopback, for the tests and the bench. */
export function createSecretsManagerClient(
  settings: Pick<Config, 'region' | 'secretsManagerEndpoint'>,
): SecretsManagerClient {
  const client = new SecretsManagerClient({
    region: settings.region,
    maxAttempts: SECRET_READ_ATTEMPTS,
    // Without throwOnRequestTimeout the handler only logs when requestTimeout passes and waits on.
    requestHandler: {
      connectionTimeout: SECRET_READ_BOUNDS.connectionTimeoutMs,
      requestTimeout: SECRET_READ_BOUNDS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
    ...(settings.secretsManagerEndpoint === undefined
      ? {}
      : { endpoint: settings.secretsManagerEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  // Throttled or out of reach after its attempts: a 503 with Retry-After, as for DynamoDB.
  translateUnavailableErrors(client);
  return client;
}
