import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AUTHORIZER_RESULT_TTL_SECONDS } from '../shared/auth/authorizer-contract';
import { KEY_MIRROR_METRICS } from '../shared/auth/key-mirror';
import { KEY_PARTITION } from '../shared/auth/key-registry';
import { STATUS_INDEX } from '../shared/dynamodb/table-definition';
import { IDEMPOTENCY_PARTITION_PREFIX } from '../shared/pets/repository';
import { BUNDLED_ASSETS_DIRECTORY, SWAGGER_UI_FILES } from '../shared/docs/reference-page';
import { API_BASE_PATH, DOCUMENTATION_ROUTES, OPERATIONS, type OperationId } from '../shared/http/routes';
import { STANDARD_PLAN_LIMITS } from '../shared/limits/plans';
import { petStoreFunction } from './functions';
import { metricsNamespaceOf } from '../shared/http/request-metrics';
import { addOperationsAlarms, notifyOnAlarm } from './alarms';
import { addDashboard } from './dashboard';
import { addGatewayResponses } from './gateway-responses';
import { petStoreTable } from './table';
import { addUsagePlans } from './usage-plans';
import { addWebAcl } from './waf';

export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
}

/** The table's items, by their leading key: what each function may touch. */
const LEADING_KEYS = {
  pets: 'PET',
  idSequence: 'SEQUENCE',
  keyRegistry: KEY_PARTITION,
  /** Requests counted per key (the operations) and per client address (the authorizer). */
  keyCounters: 'RATE#key#*',
  /** createPet's idempotency records, one partition per API key (shared/pets/repository.ts). */
  idempotencyRecords: `${IDEMPOTENCY_PARTITION_PREFIX}*`,
  addressCounters: 'RATE#ip#*',
} as const;

/** How often the key mirror copies API Gateway's keys and usage plans into the registry. */
const KEY_MIRROR_SCHEDULE = Duration.minutes(1);

/**
 * One stage of the pet store: the table, the three operation functions and the authorizer, the
 * REST API (stage `v1`, so the base address ends in /v1) with its usage plans and gateway
 * responses, a WAF web ACL, access logs, and outputs.
 */
export class PetStoreStack extends Stack {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    super(scope, id, props);
    const retain = props.stage === 'prod';
    const table = petStoreTable(this, { retain });

    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Signs the page cursors of GET /pets.',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The secret only signs page cursors; rotating it would only invalidate cursors in flight, so it is rotated by hand when needed.',
    });

    const environment = {
      TABLE_NAME: table.tableName,
      // Resolved by CloudFormation at deploy time, so a cold start does not wait for Secrets Manager.
      CURSOR_SECRET: cursorSecret.secretValue.unsafeUnwrap(),
      // The request metrics of this stage, apart from the other stage's.
      METRICS_NAMESPACE: metricsNamespaceOf(props.stage),
    };
    // Far above what every key of every plan together should send in 5 minutes at this scale.
    const invocationAlarmThreshold = 200_000;
    const functions = {} as Record<OperationId, NodejsFunction>;
    for (const operationId of Object.keys(OPERATIONS) as OperationId[]) {
      functions[operationId] = petStoreFunction(this, titleOf(operationId), {
        entry: `functions/${operationId}.ts`,
        environment,
        retain,
        invocationAlarmThreshold,
      });
    }

    // Least privilege, scoped by the items' leading keys: the reads read pets (the status index
    // holds nothing else); every operation counts its key's requests; only createPet takes ids,
    // writes pets and keeps idempotency records. No operation may touch the key registry or call API Gateway: the
    // authorizer resolved the key, and the principal arrives in the request.
    const onItems = (actions: string[], leadingKeys: string[]) =>
      new PolicyStatement({
        actions,
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
      });
    const readPets = onItems(['dynamodb:GetItem', 'dynamodb:Query'], [LEADING_KEYS.pets]);
    const readStatusIndex = new PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${table.tableArn}/index/${STATUS_INDEX}`] });
    functions.listPets.addToRolePolicy(readPets);
    functions.listPets.addToRolePolicy(readStatusIndex);
    functions.getPet.addToRolePolicy(readPets);
    functions.listPets.addToRolePolicy(onItems(['dynamodb:UpdateItem'], [LEADING_KEYS.keyCounters]));
    functions.getPet.addToRolePolicy(onItems(['dynamodb:UpdateItem'], [LEADING_KEYS.keyCounters]));
    functions.createPet.addToRolePolicy(onItems(['dynamodb:UpdateItem'], [LEADING_KEYS.keyCounters, LEADING_KEYS.idSequence]));
    // A create with an Idempotency-Key reads its record, then writes pet and record in one transaction.
    functions.createPet.addToRolePolicy(onItems(['dynamodb:PutItem'], [LEADING_KEYS.pets, LEADING_KEYS.idempotencyRecords]));
    functions.createPet.addToRolePolicy(onItems(['dynamodb:GetItem'], [LEADING_KEYS.idempotencyRecords]));

    // The authorizer reads keys by hash and counts requests without a valid key per address.
    // "Unauthorized" is a thrown error by API Gateway's design, so failed invocations are normal
    // for it: no error alarm; a failing authorizer shows as the API's 5XX answers (alarm below).
    const authorizerFunction = petStoreFunction(this, 'Authorizer', {
      entry: 'functions/authorizer.ts',
      environment: { TABLE_NAME: table.tableName },
      retain,
      invocationAlarmThreshold,
      errorAlarm: false,
    });
    authorizerFunction.addToRolePolicy(onItems(['dynamodb:GetItem'], [LEADING_KEYS.keyRegistry]));
    authorizerFunction.addToRolePolicy(onItems(['dynamodb:UpdateItem'], [LEADING_KEYS.addressCounters]));
    const authorizer = new RequestAuthorizer(this, 'BearerAuthorizer', {
      handler: authorizerFunction,
      // Cached per key and client address: a Deny (an address over its allowance) must not reach another address.
      identitySources: [IdentitySource.header('Authorization'), IdentitySource.context('identity.sourceIp')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_RESULT_TTL_SECONDS),
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: retain ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: `petstore-${props.stage}`,
      description: `Pet store API (${props.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: API_BASE_PATH.slice(1),
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
        loggingLevel: MethodLoggingLevel.ERROR,
        metricsEnabled: true,
        // One trace per request across API Gateway, the authorizer and the function.
        tracingEnabled: true,
      },
      defaultMethodOptions: { authorizer, apiKeyRequired: true },
    });
    Validations.of(this.api).acknowledge(
      { id: 'AwsSolutions-APIG2', reason: 'Requests are validated in the functions by the zod schemas, with the Error body the interface requires.' },
      { id: 'AwsSolutions-COG4', reason: 'Clients authenticate with API keys as bearer tokens (the interface), checked by the REQUEST authorizer against the key registry and by the usage plans.' },
      {
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The API Gateway account role only pushes execution logs to CloudWatch Logs.',
      },
    );

    const resources = new Map<string, ReturnType<RestApi['root']['resourceForPath']>>();
    for (const operationId of Object.keys(OPERATIONS) as OperationId[]) {
      const { method, path } = OPERATIONS[operationId];
      const resource = resources.get(path) ?? this.api.root.resourceForPath(path);
      resources.set(path, resource);
      resource.addMethod(method, new LambdaIntegration(functions[operationId]), { operationName: operationId });
    }

    // The interface description and its reference page are public (decisions.md): no key, no authorizer.
    const docsFunction = petStoreFunction(this, 'ApiDocs', {
      entry: 'functions/apiDocs.ts',
      environment: {},
      retain,
      invocationAlarmThreshold,
      extraFiles: { directory: BUNDLED_ASSETS_DIRECTORY, files: SWAGGER_UI_FILES.map((file) => `node_modules/swagger-ui-dist/${file}`) },
    });
    const docsIntegration = new LambdaIntegration(docsFunction);
    for (const [name, { method, path }] of Object.entries(DOCUMENTATION_ROUTES)) {
      const resource = this.api.root.resourceForPath(path);
      resource.addMethod(method, docsIntegration, { operationName: name, authorizationType: AuthorizationType.NONE, apiKeyRequired: false });
      Validations.of(resource).acknowledge(
        { id: 'AwsSolutions-APIG4', reason: 'The interface description and its reference page are public by design (decisions.md).' },
        { id: 'AwsSolutions-COG4', reason: 'The interface description and its reference page are public by design (decisions.md).' },
      );
    }

    // The API's 5XX rate (a failing authorizer among its causes), p99 latency, DynamoDB throttling.
    const alarmTopic = addOperationsAlarms(this, { api: this.api, table, retain });

    addGatewayResponses(this.api);
    addUsagePlans(this.api, this.api.deploymentStage, props.stage);
    addWebAcl(this, this.api.deploymentStage);

    // The key mirror: the only code with API Gateway rights, and those read-only; it keeps hashes.
    const keyMirror = petStoreFunction(this, 'KeyMirror', {
      entry: 'functions/keyMirror.ts',
      environment: { TABLE_NAME: table.tableName, REST_API_ID: this.api.restApiId, API_STAGE: this.api.deploymentStage.stageName },
      retain,
      // A run takes seconds; it must end well before the next one starts.
      timeout: Duration.seconds(50),
      // A failed run is not retried, by EventBridge (below) or by Lambda: the next one comes within a minute.
      asyncRetries: 0,
      // Its alarm is the one below: no successful run for 5 minutes (failing or not running at all).
      errorAlarm: false,
    });
    keyMirror.addToRolePolicy(onItems(['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], [LEADING_KEYS.keyRegistry]));
    const managementApi = `arn:${this.partition}:apigateway:${this.region}::`;
    keyMirror.addToRolePolicy(
      new PolicyStatement({
        actions: ['apigateway:GET'],
        resources: [`${managementApi}/usageplans`, `${managementApi}/usageplans/*/keys`, `${managementApi}/apikeys`],
      }),
    );
    Validations.of(keyMirror).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/usageplans/*/keys]`,
      reason: 'The key mirror lists the keys of every usage plan of the stage; plans are made in the console, so their ids are not known at deploy time. Read-only.',
    });
    new Rule(this, 'KeyMirrorSchedule', {
      description: 'Copies the API keys and usage plans of the stage into the key registry.',
      schedule: Schedule.rate(KEY_MIRROR_SCHEDULE),
      targets: [new LambdaFunction(keyMirror, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });
    new Alarm(this, 'KeyMirrorAlarm', {
      alarmDescription:
        'The key mirror has not succeeded for 5 minutes (failing, not running, or finding a usage plan of the stage it cannot use): console changes to keys and plans are not reaching the service; the last good copy keeps serving. See the KeyMirror function\'s log lines.',
      metric: new Metric({
        namespace: KEY_MIRROR_METRICS.namespace,
        metricName: KEY_MIRROR_METRICS.succeeded,
        dimensionsMap: { ApiId: this.api.restApiId },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });

    addDashboard(this, { stage: props.stage, api: this.api, table, functions, authorizer: authorizerFunction, keyMirrorApiId: this.api.restApiId });

    // Last: every alarm of the stage, the functions' included, notifies the one topic.
    notifyOnAlarm(this, alarmTopic);

    new CfnOutput(this, 'BaseUrl', { description: 'The base address of this stage (ends in /v1).', value: this.api.url.replace(/\/$/, '') });
    new CfnOutput(this, 'TableName', { description: 'The DynamoDB table of pets, id sequence and rate counters.', value: table.tableName });
    new CfnOutput(this, 'ApiId', { description: 'The REST API id, to find its keys and usage plans in the console.', value: this.api.restApiId });
    new CfnOutput(this, 'FreeLimitPerMinute', { description: 'Free plan: requests a minute, as the service enforces them.', value: String(STANDARD_PLAN_LIMITS.free.perMinute) });
  }
}

function titleOf(operationId: OperationId): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}
