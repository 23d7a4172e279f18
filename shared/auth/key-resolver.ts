import { config } from '../config';
import { documentClient } from '../dynamodb/client';
import { CachedKeyResolver } from './cached-key-resolver';
import { LocalKeyRegistry } from './local-key-registry';
import type { ApiKeyResolver } from './principal';

/** The resolver the handlers use, chosen by configuration once per container. */
function createKeyResolver(): ApiKeyResolver {
  switch (config.apiKeySource) {
    case 'local-registry':
      return new CachedKeyResolver(new LocalKeyRegistry(documentClient, config.tableName));
  }
}

export const apiKeyResolver: ApiKeyResolver = createKeyResolver();
