import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
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
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AUTHORIZER_RESULT_TTL_SECONDS } from '../shared/auth/authorizer-contract';
import { BUNDLED_ASSETS_DIRECTORY, SWAGGER_UI_FILES } from '../shared/docs/reference-page';
import {
  FUNCTIONS,
  OPERATION_IDS,
  OPERATIONS,
  RELEASED_FUNCTIONS,
  type FunctionDeclaration,
  type FunctionName,
  type OperationId,
  type SecretName,
} from '../functions/table';
import { API_BASE_PATH } from '../shared/http/routes';
import { STANDARD_PLAN_LIMITS } from '../shared/limits/plans';
import { HOOK_TIMEOUT_SECONDS } from '../shared/release-check/hook-deadlines';
import { REQUEST_METRICS } from '../shared/http/request-metrics';
import { ACCESS_LOG_FORMAT } from './access-log';
import { alarmDestinationOf } from './alarm-destination';
import { addOperationsAlarms, notifyOnAlarm } from './alarms';
import { addDashboard } from './dashboard';
import { declaredEnvironment, grantDeclaredRights } from './declared-rights';
import { logGroupSettings, petStoreFunction, type FunctionOptions, type PetStoreFunction } from './functions';
import { addGatewayResponses } from './gateway-responses';
import { acknowledgeKeyMirrorReads, grantKeyMirrorReads, scheduleKeyMirror } from './key-mirror';
import { addReleaseKey } from './release-key';
import { PROBER_TIMEOUT_SECONDS } from '../shared/release-check/canary-probes';
import { addReleaseProber } from './release-prober';
import { addReleases, CANARY_OF, type ReleaseTarget } from './releases';
import { noticeEndedReleases } from './release-notices';
import { addLockoutAlarm } from './lockout-alarm';
import { operationMetric } from './alarm-metrics';
import { booleanSetting } from './configuration-error';
import { stageEnvironmentOf, type Stage } from './stages';
import { petStoreTable } from './table';
import { addUsagePlans } from './usage-plans';
import { addWebAcl } from './waf';

export { STAGES, type Stage } from './stages';

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
}

/**
 * One stage of the pet store: the table, the three operation functions and the authorizer, the
 * REST API (stage `v1`, so the base address ends in /v1) with its usage plans and gateway
 * responses, a WAF web ACL, access logs, and outputs.
 */
export class PetStoreStack extends Stack {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    super(scope, id, props);
    // Checked first: a stage that needs an alarm destination (prod) and has none fails here, in one line.
    const alarmDestination = alarmDestinationOf(this.node, props.stage);
    const retain = props.stage === 'prod';
    const table = petStoreTable(this, { retain });

    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Signs the page cursors of GET /pets (listPets reads it; docs/cursor-secret-rotation.md).',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'No rotation function: the value is a random HMAC key that no person or other system uses. It is rotated by hand with put-secret-value (docs/cursor-secret-rotation.md): listPets reads the AWSCURRENT and AWSPREVIOUS versions from Secrets Manager (again after 5 minutes), signs with the current and accepts either, so a rotation needs no deploy and breaks no walk in progress; two rotations less than an hour apart may end a paused walk with a 400.',
    });

    // Every function is made from its declaration (functions/table.ts): its handler, its rights,
    // and the environment they need (the table's name, its secrets' ARNs); the operations also
    // their stage's metrics namespace.
    const secrets: Record<SecretName, ISecret> = { cursor: cursorSecret };
    // Far above what every key of every plan together should send in 5 minutes at this scale.
    const invocationAlarmThreshold = 200_000;
    const declaredFunction = (name: FunctionName, options: Partial<FunctionOptions> = {}): PetStoreFunction => {
      const declaration: FunctionDeclaration = FUNCTIONS[name];
      // Its rights name the stage's usage plans, which exist once the API does: only the key mirror is made after it.
      if (declaration.readsUsagePlanKeys === true && name !== 'keyMirror')
        throw new Error(`${name}: readsUsagePlanKeys is granted to the key mirror only (infra/key-mirror.ts)`);
      const made = petStoreFunction(this, titleOf(name), {
        entry: declaration.handler,
        retain,
        invocationAlarmThreshold,
        ...options,
        environment: {
          ...declaredEnvironment(declaration, { tableName: table.tableName, secrets }),
          ...stageEnvironmentOf(name, props.stage),
          ...options.environment,
        },
      });
      grantDeclaredRights(made, declaration, { tableArn: table.tableArn, secrets });
      return made;
    };
    const functions = Object.fromEntries(
      OPERATION_IDS.map((operationId) => [
        operationId,
        declaredFunction(operationId, {
          answers5xx: operationMetric(props.stage, operationId, REQUEST_METRICS.status5xx),
        }),
      ]),
    ) as Record<OperationId, PetStoreFunction>;

    // "Unauthorized" is a thrown error by API Gateway's design, so failed invocations are normal
    // for it: no error alarm; a failing authorizer shows as the API's 5XX answers (alarm below).
    const authorizerFunction = declaredFunction('authorizer', { errorAlarm: false });
    const authorizer = new RequestAuthorizer(this, 'BearerAuthorizer', {
      handler: authorizerFunction.live,
      // Cached per key and client address: a Deny (an address over its allowance) must not reach another address.
      identitySources: [IdentitySource.header('Authorization'), IdentitySource.context('identity.sourceIp')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_RESULT_TTL_SECONDS),
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', logGroupSettings(retain));
    this.api = new RestApi(this, 'Api', {
      restApiName: `petstore-${props.stage}`,
      description: `Pet store API (${props.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The account's logging role is account-wide: set once by PetStore-account (infra/app.ts), never by a stage.
      cloudWatchRole: false,
      deployOptions: {
        stageName: API_BASE_PATH.slice(1),
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        // No execution logs: API Gateway would write them to a log group of its own making, with
        // no retention, that outlives the stack. The access log says per request what they would
        // for our failures (the authorizer's, the integration's and the gateway's own error).
        loggingLevel: MethodLoggingLevel.OFF,
        metricsEnabled: true,
        // One trace per request across API Gateway, the authorizer and the function.
        tracingEnabled: true,
      },
      defaultMethodOptions: { authorizer, apiKeyRequired: true },
    });
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in the functions (checks held to the zod schemas), with the Error body the interface requires.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Clients authenticate with API keys as bearer tokens (the interface), checked by the REQUEST authorizer against the key registry and by the usage plans.',
      },
    );
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG6',
      reason:
        "Execution logs are off on purpose: API Gateway writes them to a log group it makes itself, without retention, that survives the stack. The access log holds a line per request with the authorizer's, the integration's and the gateway's error (infra/access-log.ts).",
    });

    const resources = new Map<string, ReturnType<RestApi['root']['resourceForPath']>>();
    for (const operationId of OPERATION_IDS) {
      const { method, path } = OPERATIONS[operationId].route;
      const resource = resources.get(path) ?? this.api.root.resourceForPath(path);
      resources.set(path, resource);
      resource.addMethod(method, new LambdaIntegration(functions[operationId].live), { operationName: operationId });
    }

    // The interface description and its reference page are public (decisions.md): no key, no authorizer.
    const docsFunction = declaredFunction('apiDocs', {
      extraFiles: {
        directory: BUNDLED_ASSETS_DIRECTORY,
        files: SWAGGER_UI_FILES.map((file) => `node_modules/swagger-ui-dist/${file}`),
      },
    });
    const docsIntegration = new LambdaIntegration(docsFunction.live);
    for (const [name, { method, path }] of Object.entries(FUNCTIONS.apiDocs.routes)) {
      const resource = this.api.root.resourceForPath(path);
      resource.addMethod(method, docsIntegration, {
        operationName: name,
        authorizationType: AuthorizationType.NONE,
        apiKeyRequired: false,
      });
      Validations.of(resource).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason: 'The interface description and its reference page are public by design (decisions.md).',
        },
        {
          id: 'AwsSolutions-COG4',
          reason: 'The interface description and its reference page are public by design (decisions.md).',
        },
      );
    }

    addGatewayResponses(this.api);
    const usagePlans = addUsagePlans(this.api, this.api.deploymentStage, props.stage);
    addWebAcl(this, this.api.deploymentStage, props.stage);

    // The key mirror: the only code with API Gateway rights, and those read-only; it keeps hashes.
    const keyMirror = declaredFunction('keyMirror', {
      environment: { REST_API_ID: this.api.restApiId, API_STAGE: this.api.deploymentStage.stageName },
      // A run takes seconds; it must end well before the next one starts.
      timeout: Duration.seconds(50),
      // A failed run is not retried, by EventBridge (infra/key-mirror.ts) or by Lambda, and a run
      // Lambda cannot start within a minute (no concurrency left) is dropped: the next one comes.
      async: { retries: 0, maxEventAge: Duration.minutes(1) },
      // Its alarm is the one of its schedule (infra/key-mirror.ts); a schedule cannot run away.
      errorAlarm: false,
      invocationAlarmThreshold: undefined,
    });
    if (FUNCTIONS.keyMirror.readsUsagePlanKeys) {
      grantKeyMirrorReads(keyMirror, this.api, Object.values(usagePlans));
      acknowledgeKeyMirrorReads(keyMirror);
    }
    scheduleKeyMirror(this, keyMirror, this.api.restApiId);

    // CodeDeploy's check before traffic of each release (functions/releaseCheck, infra/releases.ts).
    const releaseCheck = declaredFunction('releaseCheck', {
      // The key's read, the check and the report, each by its deadline (shared/release-check/hook-deadlines.ts).
      timeout: Duration.seconds(HOOK_TIMEOUT_SECONDS),
      // Traced like every function: in Lambda the SDK passes the trace on (X-Amzn-Trace-Id), so each
      // probe's invocation of the new version is a segment of the check's trace.
      // Runs once per function per release: its failures are the release's, reported to CodeDeploy.
      errorAlarm: false,
      invocationAlarmThreshold: undefined,
    });
    // The key the check walks the success paths with, apart from every customer's (infra/release-key.ts).
    const releaseKey = addReleaseKey(this, {
      stageName: props.stage,
      plans: usagePlans,
      mirror: keyMirror,
      check: releaseCheck,
    });
    // While a prod release's canary runs, its new versions get the walk's requests every minute, for their gates (infra/release-prober.ts).
    const releaseProber = declaredFunction('releaseProber', {
      // Its reads and its rounds, each by its deadline (shared/release-check/canary-probes.ts).
      timeout: Duration.seconds(PROBER_TIMEOUT_SECONDS),
      async: { retries: 0, maxEventAge: Duration.minutes(1) },
      invocationAlarmThreshold: undefined,
    });
    const canaryProber = addReleaseProber(this, {
      prober: releaseProber,
      probed: {
        authorizer: authorizerFunction,
        createPet: functions.createPet,
        getPet: functions.getPet,
        listPets: functions.listPets,
      },
      releaseKey,
      scheduled: CANARY_OF[props.stage] !== undefined,
    });
    // The API's 5XX rate (a failing authorizer among its causes), p99 latency, DynamoDB and Lambda throttling.
    const everyFunction = [
      ...Object.values(functions),
      authorizerFunction,
      docsFunction,
      keyMirror,
      releaseCheck,
      releaseProber,
    ];
    const alarms = addOperationsAlarms(this, {
      api: this.api,
      table,
      functions: everyFunction.map(({ fn }) => fn),
      retain,
      destination: alarmDestination,
    });

    // A stage alarm, notifying: the authorizer refusing nearly everyone (a release that locked customers
    // out once it took all the traffic). Not among the alarms a release watches: during a canary the old
    // version still serves, so it cannot fire there, and firing already it would stop the fix's release.
    addLockoutAlarm(this, props.stage);

    // Releases: the request path's functions (those the table gives release probes) shift to a new
    // version gradually in prod, once the check before traffic passed, watched by gates on the new
    // version alone and by the stage's 5XX and latency alarms: an operation's failures include its
    // 5XX answers; the authorizer, whose "Unauthorized" is a failed invocation, is judged by its
    // refusals. The key mirror's alias moves at once (docs/releases.md).
    const byName: Partial<Record<FunctionName, PetStoreFunction>> = {
      ...functions,
      authorizer: authorizerFunction,
      apiDocs: docsFunction,
      keyMirror,
      releaseCheck,
      releaseProber,
    };
    const releaseOf = (name: FunctionName): ReleaseTarget => {
      const fn = byName[name];
      if (fn === undefined)
        throw new Error(`${name} is released (it has release probes) but the stack makes no function for it`);
      const operation = OPERATION_IDS.find((operationId) => operationId === name);
      return {
        name,
        function: fn,
        ...(operation === undefined ? {} : { operation }),
        judgedBy: fn === authorizerFunction ? 'refusals' : 'failures',
      };
    };
    const releases = addReleases(
      this,
      Object.fromEntries(RELEASED_FUNCTIONS.map((name) => [titleOf(name), releaseOf(name)])),
      {
        stage: props.stage,
        stageAlarms: alarms.release,
        ignoreAlarms: booleanSetting(this.node.tryGetContext('ignoreReleaseAlarms'), 'ignoreReleaseAlarms'),
        check: releaseCheck,
        ...(canaryProber === undefined ? {} : { canaryProbesGate: canaryProber.gate }),
      },
    );

    // Every function of both stages shares the account's concurrency quota (docs/first-deploy.md).
    Annotations.of(this).addInfo(
      `${everyFunction.length} functions in this stage; an uncached request runs two at once (authorizer and operation). Check the account's Lambda concurrency quota before the first deploy: aws lambda get-account-settings (ConcurrentExecutions); a new account may have 10. See docs/first-deploy.md.`,
    );

    const dashboard = addDashboard(this, {
      stage: props.stage,
      api: this.api,
      table,
      functions: Object.fromEntries(
        Object.entries(functions).map(([operationId, { fn }]) => [operationId, fn]),
      ) as Record<OperationId, NodejsFunction>,
      authorizer: authorizerFunction.fn,
      keyMirrorApiId: this.api.restApiId,
    });

    // Last: every alarm of the stage, the functions' included, notifies the one topic.
    // Not the release gates: they judge a release, which CodeDeploy rolls back by itself; outside one
    // a gate's two failures of ten invocations are no reason to wake anyone (the stage's alarms are).
    // A release that failed or was stopped does notify it (and its own alarm, on notices not delivered, is one of those below).
    noticeEndedReleases(this, releases.groups, { topic: alarms.topic, key: alarms.topicKey }, alarmDestination);
    notifyOnAlarm(this, alarms.topic, alarmDestination, [
      ...releases.gates,
      ...(canaryProber === undefined ? [] : [canaryProber.gate]),
    ]);

    new CfnOutput(this, 'BaseUrl', {
      description: 'The base address of this stage (ends in /v1).',
      value: this.api.url.replace(/\/$/, ''),
    });
    new CfnOutput(this, 'TableName', {
      description: 'The DynamoDB table of pets, id sequence and rate counters.',
      value: table.tableName,
    });
    new CfnOutput(this, 'DashboardName', {
      description: 'The CloudWatch dashboard of this stage (CloudFormation names it: no two stacks collide).',
      value: dashboard.dashboardName,
    });
    new CfnOutput(this, 'ReleaseKeyId', {
      description:
        "The release check's API key (its id, not its value): keep it enabled and in its usage plan (docs/release-check.md).",
      value: releaseKey.ref,
    });
    new CfnOutput(this, 'ApiId', {
      description: 'The REST API id, to find its keys and usage plans in the console.',
      value: this.api.restApiId,
    });
    new CfnOutput(this, 'FreeLimitPerMinute', {
      description: 'Free plan: requests a minute, as the service enforces them.',
      value: String(STANDARD_PLAN_LIMITS.free.perMinute),
    });
  }
}

/** A function's construct id: its name, capitalized (ListPets, Authorizer, KeyMirror). */
function titleOf(name: FunctionName): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
