/**
 * Every setting the shared code reads from the environment, read here and nowhere else.
 * Lambda sets these from the CDK stack; the local server and the tests set them before
 * any handler module is imported.
 */
export type ApiKeySource = 'local-registry' | 'api-gateway';

export interface Config {
  /** The single DynamoDB table that holds pets, the id sequence and local API keys. */
  readonly tableName: string;
  readonly region: string;
  /** Set only when talking to DynamoDB Local; unset in AWS. */
  readonly dynamoDbEndpoint: string | undefined;
  /** Where bearer keys are resolved to plans. */
  readonly apiKeySource: ApiKeySource;
  /** HMAC key that signs page cursors, so a tampered cursor is refused. */
  readonly cursorSecret: string | undefined;
}

export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    tableName: env.TABLE_NAME ?? 'petstore-local',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    apiKeySource: readApiKeySource(env.API_KEY_SOURCE),
    cursorSecret: env.CURSOR_SECRET || undefined,
  };
}

function readApiKeySource(value: string | undefined): ApiKeySource {
  if (value === undefined || value === '' || value === 'local-registry') return 'local-registry';
  if (value === 'api-gateway') return 'api-gateway';
  throw new Error(`API_KEY_SOURCE must be "local-registry" or "api-gateway", got "${value}"`);
}

export const config: Config = readConfig(process.env);
