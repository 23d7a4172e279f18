import { config } from '../config';
import { AWS_CALL_BOUNDS, documentClient, MAX_ATTEMPTS } from '../dynamodb/client';
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
    requestHandler: { connectionTimeout: AWS_CALL_BOUNDS.connectionTimeoutMs, requestTimeout: AWS_CALL_BOUNDS.requestTimeoutMs },
  });
  translateUnavailableErrors(client);
  return { client, sdk };
}

export const apiKeyResolver: ApiKeyResolver = createKeyResolver();
