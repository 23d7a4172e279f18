import { ApiGatewayKeySource, createManagementClient } from '../../shared/auth/api-gateway-keys';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { mirrorKeys } from '../../shared/auth/key-mirror';
import { logMirrorRun } from '../../shared/auth/key-mirror-run-log';
import { config } from '../../shared/config';
import { documentClient } from '../../shared/dynamodb/document-client';

const registry = new KeyRegistry(documentClient, config.tableName);
const client = createManagementClient({ region: config.region });

/**
 * The key mirror, run every minute by a schedule (and only by it): copies this stage's API keys
 * and usage plans from API Gateway into the key registry (shared/auth/key-mirror.ts). A run that
 * fails throws, so the invocation counts as an error; the registry keeps its last good copy, and
 * the stack's alarm fires when no run has succeeded for 5 minutes (a run that found a usage plan
 * it cannot use, or a key in two plans, did its part but is not a success either). A successful run writes one
 * log line that is also a CloudWatch metric (embedded metric format): no API call for it.
 */
export const handler = async (): Promise<void> => {
  const { restApiId, apiStage } = config;
  if (restApiId === undefined || apiStage === undefined)
    throw new Error('REST_API_ID and API_STAGE must be set for the key mirror');
  const startedAt = Date.now();
  const report = await mirrorKeys(
    new ApiGatewayKeySource(client),
    registry,
    { apiId: restApiId, stage: apiStage, releaseApiKeyId: config.releaseApiKeyId },
    startedAt,
  );
  logMirrorRun(report, restApiId, startedAt);
};
