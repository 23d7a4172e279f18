/**
 * Every setting the shared code reads from the environment, read here and nowhere else.
 * Lambda sets these from the CDK stack; the local server and the tests set them before
 * any handler module is imported.
 */
export type Config = CommonConfig & CursorKeySettings;

/** The settings every deployment has, whatever signs its page cursors. */
export interface CommonConfig {
  /** The single DynamoDB table that holds pets, the key registry, the rate counters and the idempotency records (shared/dynamodb/table-definition.ts). */
  readonly tableName: string;
  readonly region: string;
  /** Unset in AWS. Set to DynamoDB Local's URL, or by npm start to any DYNAMODB_ENDPOINT it is given (an AWS one included). */
  readonly dynamoDbEndpoint: string | undefined;
  /** With DynamoDB Local only (not an endpoint of AWS's): the access key that picks the database (npm start's own, random; `local` elsewhere). */
  readonly dynamoDbAccessKeyId: string;
  /** The key mirror only: the REST API and stage whose usage plans it copies. */
  readonly restApiId: string | undefined;
  readonly apiStage: string | undefined;
  /** Set only when talking to a stand-in for Secrets Manager (the tests, the bench); unset in AWS. */
  readonly secretsManagerEndpoint: string | undefined;
  /** Where the request metrics go in CloudWatch: one namespace per stage (`PetStore/prod`). */
  readonly metricsNamespace: string;
  /** The version of the function that runs (Lambda sets it: `7` when its `live` alias runs version 7; `$LATEST` elsewhere). */
  readonly functionVersion: string;
  /** How old a pet's id must be before a listing shows it (LISTING_SETTLE_MS; the tests set 0 to list what they just made). */
  readonly listingSettleMs: number | undefined;
  /** FIRST_PAGE_CACHE=off turns the per-instance cache of busy first pages off (the tests). */
  readonly firstPageCache: boolean;
  /** FOUND_PET_CACHE=off turns the per-instance cache of found pets off (the tests). */
  readonly foundPetCache: boolean;
  /** LISTING_SETS=1 has pages read the first listing set of each kind alone (the bench compares; all unless set). */
  readonly listingSets: number | undefined;
  /** Keys whose plan allows more requests a minute are counted on shards (RATE_SHARD_THRESHOLD_PER_MINUTE; 30,000 unless set: shared/limits/counter-shards.ts). Set low to try sharded counters locally. */
  readonly rateShardThresholdPerMinute: number | undefined;
  /** The release check only (functions/releaseCheck): the versions it probes, as JSON, function name → qualified version ARN (RELEASE_CHECK_TARGETS; the stack sets it). */
  readonly releaseCheckTargets: string | undefined;
  /** The key mirror and the release check: the API Gateway id of the stage's release key (RELEASE_API_KEY_ID; the stack sets it). */
  readonly releaseApiKeyId: string | undefined;
  /** The release prober only (functions/releaseProber): the functions it probes while they shift, as JSON, function name → function ARN (CANARY_PROBE_FUNCTIONS; the stack sets it). */
  readonly canaryProbeFunctions: string | undefined;
}

/**
 * Where listPets's page cursor keys come from: Secrets Manager (AWS) or the environment (npm start,
 * the tests), never both. With CURSOR_SECRET_ARN set, CURSOR_SECRET and CURSOR_SECRET_PREVIOUS are
 * not read (the ARN wins: the tests set CURSOR_SECRET for every file, and some the ARN too).
 */
export type CursorKeySettings =
  | {
      /**
       * listPets only, in AWS: the Secrets Manager secret whose current value signs page cursors
       * (its previous value is still accepted).
       */
      readonly cursorSecretArn: string;
      readonly cursorSecret?: never;
      readonly cursorSecretPrevious?: never;
    }
  | {
      readonly cursorSecretArn?: never;
      /** Without Secrets Manager (npm start, the tests): the HMAC key that signs page cursors, so a tampered cursor is refused. */
      readonly cursorSecret: string | undefined;
      /** Without Secrets Manager: a key whose cursors are still accepted (the one before `cursorSecret`). */
      readonly cursorSecretPrevious: string | undefined;
    };

export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    tableName: env.TABLE_NAME ?? 'petstore-local',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    dynamoDbAccessKeyId: env.DYNAMODB_LOCAL_ACCESS_KEY_ID || 'local',
    restApiId: env.REST_API_ID || undefined,
    apiStage: env.API_STAGE || undefined,
    ...cursorKeySettingsOf(env),
    secretsManagerEndpoint: env.SECRETS_MANAGER_ENDPOINT || undefined,
    metricsNamespace: env.METRICS_NAMESPACE || 'PetStore/local',
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION || '$LATEST',
    listingSettleMs: listingSettleMsOf(env.LISTING_SETTLE_MS),
    firstPageCache: switchOf('FIRST_PAGE_CACHE', env.FIRST_PAGE_CACHE),
    foundPetCache: switchOf('FOUND_PET_CACHE', env.FOUND_PET_CACHE),
    listingSets: listingSetsOf(env.LISTING_SETS),
    rateShardThresholdPerMinute: shardThresholdOf(env.RATE_SHARD_THRESHOLD_PER_MINUTE),
    releaseCheckTargets: env.RELEASE_CHECK_TARGETS || undefined,
    releaseApiKeyId: env.RELEASE_API_KEY_ID || undefined,
    canaryProbeFunctions: env.CANARY_PROBE_FUNCTIONS || undefined,
  };
}

function cursorKeySettingsOf(env: NodeJS.ProcessEnv): CursorKeySettings {
  const cursorSecretArn = env.CURSOR_SECRET_ARN || undefined;
  if (cursorSecretArn !== undefined) return { cursorSecretArn };
  return {
    cursorSecretArn: undefined,
    cursorSecret: env.CURSOR_SECRET || undefined,
    cursorSecretPrevious: env.CURSOR_SECRET_PREVIOUS || undefined,
  };
}

function listingSettleMsOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^(0|[1-9][0-9]{0,4})$/.test(value))
    throw new Error(`LISTING_SETTLE_MS "${value}" is not a whole number of milliseconds from 0 to 99999`);
  return Number(value);
}

function shardThresholdOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value))
    throw new Error(`RATE_SHARD_THRESHOLD_PER_MINUTE "${value}" is not a whole number of requests a minute from 1`);
  return Number(value);
}

function switchOf(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`${name} "${value}" is not on or off`);
}

function listingSetsOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (value !== '1' && value !== '2') throw new Error(`LISTING_SETS "${value}" is not 1 or 2`);
  return Number(value);
}

export const config: Config = readConfig(process.env);
