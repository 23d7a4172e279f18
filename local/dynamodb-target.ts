import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isAwsEndpoint } from '../shared/dynamodb/aws-endpoint';
import { LOCAL_REGION, LOCAL_TABLE_NAME } from './data-dir';

/**
 * The DynamoDB that `npm start` and `npm run keys` use, by one rule: DYNAMODB_ENDPOINT's when set,
 * with TABLE_NAME's table (default petstore-local); else npm start's own DynamoDB Local and its
 * table petstore-local. An endpoint of AWS's own (shared/dynamodb/aws-endpoint.ts) is reached with
 * the usual credentials in the shell's AWS_REGION; any other is a DynamoDB Local (or a proxy in
 * front of one), reached with DYNAMODB_LOCAL_ACCESS_KEY_ID (default `local`) in the fixed local
 * region: with the access key, the region picks its database.
 */
export interface DynamoDbTarget {
  readonly endpoint: string;
  readonly tableName: string;
  readonly region: string;
  /** DynamoDB Local's access key; undefined for AWS's endpoints, which take the usual credentials. */
  readonly localAccessKey: string | undefined;
}

/** DYNAMODB_ENDPOINT's DynamoDB, or undefined when it is unset or empty. */
export function namedTarget(env: NodeJS.ProcessEnv = process.env): DynamoDbTarget | undefined {
  const endpoint = env.DYNAMODB_ENDPOINT;
  if (!endpoint) return undefined;
  if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) {
    throw new Error(
      `DYNAMODB_ENDPOINT must be an http:// or https:// URL, e.g. http://localhost:8000; got "${endpoint}".`,
    );
  }
  const inAws = isAwsEndpoint(endpoint);
  return {
    endpoint,
    tableName: env.TABLE_NAME || LOCAL_TABLE_NAME,
    // In AWS, the handlers' own rule (shared/config.ts).
    region: inAws ? (env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1') : LOCAL_REGION,
    localAccessKey: inAws ? undefined : env.DYNAMODB_LOCAL_ACCESS_KEY_ID || 'local',
  };
}

/** npm start's own DynamoDB Local, reached with its data directory's access key (local/data-dir-secrets.ts). */
export function ownTarget(endpoint: string, accessKey: string): DynamoDbTarget {
  return { endpoint, tableName: LOCAL_TABLE_NAME, region: LOCAL_REGION, localAccessKey: accessKey };
}

/** Whether the target is a table in AWS: the public demo keys are never registered there. */
export function isInAws(target: DynamoDbTarget): boolean {
  return target.localAccessKey === undefined;
}

/**
 * A client for the set-up calls (the table, the keys), each attempt bounded as the handlers' calls
 * to DynamoDB Local are (shared/dynamodb/client.ts, which is not imported here: it reads the
 * handlers' settings when first imported, before npm start has set them).
 */
export function clientFor(target: DynamoDbTarget): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: target.endpoint,
    region: target.region,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 4_000, throwOnRequestTimeout: true },
    ...(target.localAccessKey === undefined
      ? {}
      : { credentials: { accessKeyId: target.localAccessKey, secretAccessKey: target.localAccessKey } }),
  });
}

/** Points the handler modules (shared/config.ts) at the target, the same way; call before they are imported. */
export function pointHandlersAt(target: DynamoDbTarget, env: NodeJS.ProcessEnv = process.env): void {
  env.DYNAMODB_ENDPOINT = target.endpoint;
  env.TABLE_NAME = target.tableName;
  env.AWS_REGION = target.region;
  if (target.localAccessKey === undefined) delete env.DYNAMODB_LOCAL_ACCESS_KEY_ID;
  else env.DYNAMODB_LOCAL_ACCESS_KEY_ID = target.localAccessKey;
}

/** How long the first call may take before the target is said not to answer. */
const ANSWER_DEADLINE_MS = 5_000;

/**
 * Whether the target's table is there; throws one line when the target does not answer within
 * ANSWER_DEADLINE_MS, or refuses (credentials, rights). DescribeTable, not ListTables: a
 * developer's rights in AWS may be on the table alone.
 */
export async function tableExists(client: DynamoDBClient, target: DynamoDbTarget): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: target.tableName }), {
      abortSignal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
    });
    return true;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return false;
    throw new Error(unusable(error, target));
  }
}

function unusable(error: unknown, target: DynamoDbTarget): string {
  const { name, code, message, $metadata } = error as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const said = [code ?? name, message].filter((part) => part !== undefined && part !== '').join(': ');
  if (name === 'TimeoutError' || name === 'AbortError')
    return `DynamoDB does not answer at ${target.endpoint} (no answer within ${ANSWER_DEADLINE_MS / 1000} s).`;
  if (name === 'CredentialsProviderError')
    return `No AWS credentials for ${target.endpoint} (${said}): set them up as for the AWS CLI, e.g. AWS_PROFILE.`;
  // Answered, but not with the table: credentials, rights, or no DynamoDB there at all.
  if ($metadata?.httpStatusCode !== undefined)
    return `${target.endpoint} answered DescribeTable on ${target.tableName} with HTTP ${$metadata.httpStatusCode} (${said}).`;
  return `DynamoDB does not answer at ${target.endpoint} (${said || String(error)}).`;
}
