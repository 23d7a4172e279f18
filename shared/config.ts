/**
 * Every setting the shared code reads from the environment, read here and nowhere else.
 * Lambda sets these from the CDK stack; the local server and the tests set them before
 * any handler module is imported.
 */
export interface Config {
  /** The single DynamoDB table that holds pets, the id sequence, the key registry and the rate counters. */
  readonly tableName: string;
  readonly region: string;
  /** Set only when talking to DynamoDB Local; unset in AWS. */
  readonly dynamoDbEndpoint: string | undefined;
  /** The key mirror only: the REST API and stage whose usage plans it copies. */
  readonly restApiId: string | undefined;
  readonly apiStage: string | undefined;
  /** HMAC key that signs page cursors, so a tampered cursor is refused. */
  readonly cursorSecret: string | undefined;
  /** Where the request metrics go in CloudWatch: one namespace per stage (`PetStore/prod`). */
  readonly metricsNamespace: string;
}

export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    tableName: env.TABLE_NAME ?? 'petstore-local',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    restApiId: env.REST_API_ID || undefined,
    apiStage: env.API_STAGE || undefined,
    cursorSecret: env.CURSOR_SECRET || undefined,
    metricsNamespace: env.METRICS_NAMESPACE || 'PetStore/local',
  };
}

export const config: Config = readConfig(process.env);
