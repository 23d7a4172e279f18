import { config } from '../config';
import { documentClient, CONNECTION_TIMEOUT_MS, MAX_ATTEMPTS, REQUEST_TIMEOUT_MS } from '../dynamodb/client';
import { translateUnavailableErrors } from '../dynamodb/datastore-errors';
import { ApiGatewayKeyResolver, type ApiGatewayConnection } from './api-gateway-key-resolver';
import { CachedKeyResolver } from './cached-key-resolver';
import { LocalKeyRegistry } from './local-key-registry';
import type { ApiKeyResolver } from './principal';

/** The resolver the handlers use, chosen by configuration once per container, behind a 60 s cache. */
function createKeyResolver(): ApiKeyResolver {
  switch (config.apiKeySource) {
    case 'local-registry':
      return new CachedKeyResolver(new LocalKeyRegistry(documentClient, config.tableName));
    case 'api-gateway':
      return new CachedKeyResolver(new ApiGatewayKeyResolver(connectToApiGateway));
  }
}

async function connectToApiGateway(): Promise<ApiGatewayConnection> {
  const sdk = await import('@aws-sdk/client-api-gateway');
  const client = new sdk.APIGatewayClient({
    region: config.region,
    maxAttempts: MAX_ATTEMPTS,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
  });
  translateUnavailableErrors(client);
  return { client, sdk };
}

export const apiKeyResolver: ApiKeyResolver = createKeyResolver();
