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
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { STATUS_INDEX } from '../shared/dynamodb/table-definition';
import { BUNDLED_ASSETS_DIRECTORY, SWAGGER_UI_FILES } from '../shared/docs/reference-page';
import { API_BASE_PATH, DOCUMENTATION_ROUTES, OPERATIONS, type OperationId } from '../shared/http/routes';
import { STANDARD_PLAN_LIMITS } from '../shared/limits/plans';
import { petStoreFunction } from './functions';
import { addGatewayResponses } from './gateway-responses';
import { petStoreTable } from './table';
import { addUsagePlans } from './usage-plans';
import { addWebAcl } from './waf';

export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
}

/** The table partitions each function may write, by the leading key of the item. */
const COUNTERS = 'RATE#*';

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
      API_KEY_SOURCE: 'api-gateway',
      // Resolved by CloudFormation at deploy time, so a cold start does not wait for Secrets Manager.
      CURSOR_SECRET: cursorSecret.secretValue.unsafeUnwrap(),
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

    // Least privilege, scoped by the items' leading keys: reads read pets; every operation counts
    // requests; only createPet takes ids and writes pets.
    const readPets = new PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:Query'],
      resources: [table.tableArn, `${table.tableArn}/index/${STATUS_INDEX}`],
    });
    const countRequests = (extraLeadingKeys: string[] = []) =>
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [COUNTERS, ...extraLeadingKeys] } },
      });
    const writePets = new PolicyStatement({
      actions: ['dynamodb:PutItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PET'] } },
    });
    const readKeysAndPlans = new PolicyStatement({
      actions: ['apigateway:GET'],
      resources: [`arn:${this.partition}:apigateway:${this.region}::/apikeys/*`, `arn:${this.partition}:apigateway:${this.region}::/usageplans`],
    });
    functions.listPets.addToRolePolicy(readPets);
    functions.getPet.addToRolePolicy(readPets);
    functions.listPets.addToRolePolicy(countRequests());
    functions.getPet.addToRolePolicy(countRequests());
    functions.createPet.addToRolePolicy(countRequests(['SEQUENCE']));
    functions.createPet.addToRolePolicy(writePets);
    for (const fn of Object.values(functions)) {
      fn.addToRolePolicy(readKeysAndPlans);
      Validations.of(fn).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/apikeys/*]',
        reason: 'The key resolver reads the one API key API Gateway matched (by its id, known only per request) and its usage plans.',
      });
    }

    const authorizerFunction = petStoreFunction(this, 'Authorizer', {
      entry: 'functions/authorizer.ts',
      environment: {},
      retain,
      invocationAlarmThreshold,
    });
    const authorizer = new TokenAuthorizer(this, 'BearerAuthorizer', {
      handler: authorizerFunction,
      identitySource: IdentitySource.header('Authorization'),
      resultsCacheTtl: Duration.minutes(5),
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
      },
      defaultMethodOptions: { authorizer, apiKeyRequired: true },
    });
    Validations.of(this.api).acknowledge(
      { id: 'AwsSolutions-APIG2', reason: 'Requests are validated in the functions by the zod schemas, with the Error body the interface requires.' },
      { id: 'AwsSolutions-COG4', reason: 'Clients authenticate with API keys as bearer tokens (the interface), checked by the TOKEN authorizer and usage plans.' },
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

    addGatewayResponses(this.api);
    addUsagePlans(this.api, this.api.deploymentStage, props.stage);
    addWebAcl(this, this.api.deploymentStage);

    new CfnOutput(this, 'BaseUrl', { description: 'The base address of this stage (ends in /v1).', value: this.api.url.replace(/\/$/, '') });
    new CfnOutput(this, 'TableName', { description: 'The DynamoDB table of pets, id sequence and rate counters.', value: table.tableName });
    new CfnOutput(this, 'ApiId', { description: 'The REST API id, to find its keys and usage plans in the console.', value: this.api.restApiId });
    new CfnOutput(this, 'FreeLimitPerMinute', { description: 'Free plan: requests a minute, as the service enforces them.', value: String(STANDARD_PLAN_LIMITS.free.perMinute) });
  }
}

function titleOf(operationId: OperationId): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}
