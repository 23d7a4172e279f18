import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIVE_ALIAS } from '../shared/live-alias';
import { FUNCTION_NODE_OPTIONS, LAMBDA_BUNDLING } from './bundling';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Settings every function shares: Node.js 22 on arm64, bundled locally by esbuild (no Docker). */
export const FUNCTION_SETTINGS = {
  runtime: Runtime.NODEJS_22_X,
  architecture: Architecture.ARM_64,
  memorySize: 512,
  timeout: Duration.seconds(10),
  // Active tracing: Lambda samples and records each invocation in the request's X-Ray trace.
  // No X-Ray SDK in the bundle (no DynamoDB subsegments): nothing added to the cold start.
  tracing: Tracing.ACTIVE,
} as const;

export interface FunctionOptions {
  readonly entry: string;
  readonly environment: Record<string, string>;
  readonly retain: boolean;
  /** More invocations than this in 5 minutes raises the function's runaway alarm (none when absent). */
  readonly invocationAlarmThreshold?: number;
  /** Whether failed invocations raise an alarm (default: yes; not for a function that fails on purpose). */
  readonly errorAlarm?: boolean;
  /**
   * An operation's answers of 500 or more (its request metric): its error alarm counts them with
   * its failed invocations, since a 500 or a 503 it answers itself is a successful invocation.
   */
  readonly answers5xx?: IMetric;
  readonly timeout?: Duration;
  /** Lambda's handling of asynchronous invocations of the alias (a schedule's): its defaults are 2 retries and 6 hours. */
  readonly async?: { readonly retries: number; readonly maxEventAge: Duration };
  /** Files of installed packages to ship beside the bundle, into this directory of it. */
  readonly extraFiles?: { readonly directory: string; readonly files: readonly string[] };
}

/**
 * Every log group of a stage: kept 90 days in prod, 14 in staging, and deleted with its stack
 * (in prod too: the lines of the last 90 days go with a deleted stage, while the table stays).
 */
export function logGroupSettings(retain: boolean): { retention: RetentionDays; removalPolicy: RemovalPolicy } {
  return {
    retention: retain ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS,
    removalPolicy: RemovalPolicy.DESTROY,
  };
}

export { LIVE_ALIAS };

/** A function, and the alias that serves its published version (infra/releases.ts moves it). */
export interface PetStoreFunction {
  readonly fn: NodejsFunction;
  readonly live: Alias;
  /** Its own role: its log group, and what the stack grants it. */
  readonly role: Role;
}

export function petStoreFunction(scope: Construct, id: string, options: FunctionOptions): PetStoreFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, logGroupSettings(options.retain));
  // A role of its own instead of AWSLambdaBasicExecutionRole (which may write to every log group
  // of the account): the function writes its own log group, and nothing else unless granted.
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `The ${id} function of ${Stack.of(scope).stackName}: its own log group, and what the stack grants it.`,
  });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, id, {
    role,
    ...FUNCTION_SETTINGS,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    entry: resolve(root, options.entry),
    handler: 'handler',
    projectRoot: root,
    depsLockFilePath: resolve(root, 'package-lock.json'),
    logGroup,
    loggingFormat: LoggingFormat.JSON,
    environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS, ...options.environment },
    bundling: {
      ...LAMBDA_BUNDLING,
      ...(options.extraFiles === undefined ? {} : { commandHooks: copyInto(options.extraFiles) }),
    },
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray grants on no narrower resource than *. Every other right of the function is scoped (its logs: its own log group and its streams).',
  });
  // Each deploy publishes a version (a new one only when the code or configuration changed); the
  // alias points at it and is what every caller invokes, so its asynchronous settings are set on
  // it, not on $LATEST (which nothing calls).
  const live = new Alias(scope, `${id}Live`, {
    aliasName: LIVE_ALIAS,
    version: fn.currentVersion,
    description: `What callers of ${id} invoke.`,
    ...(options.async === undefined
      ? {}
      : { retryAttempts: options.async.retries, maxEventAge: options.async.maxEventAge }),
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions::AwsSolutions-L1',
    reason: 'Node.js 22 is the runtime the product is built and tested for; moving up is a deliberate change.',
  });
  if (options.invocationAlarmThreshold !== undefined) {
    new Alarm(scope, `${id}RunawayAlarm`, {
      alarmDescription: `${id}: far more invocations than any plan allows; check for a loop or a flood.`,
      metric: fn.metricInvocations({ period: Duration.minutes(5) }),
      threshold: options.invocationAlarmThreshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
  if (options.errorAlarm === false) return { fn, live, role };
  const period = Duration.minutes(5);
  new Alarm(scope, `${id}ErrorAlarm`, {
    alarmDescription:
      options.answers5xx === undefined
        ? `${id}: invocations failing (a 500 is always our bug).`
        : `${id}: 5 or more invocations failing or answers of 500 or more in 5 minutes, of any version (a 500 is always our bug; a 503 is the datastore or a secret out of reach).`,
    metric:
      options.answers5xx === undefined
        ? fn.metricErrors({ period })
        : new MathExpression({
            // Each filled with 0: neither is published for a minute without one.
            expression: 'FILL(errors, 0) + FILL(answers5xx, 0)',
            usingMetrics: { errors: fn.metricErrors({ period, statistic: 'Sum' }), answers5xx: options.answers5xx },
            period,
            label: 'failed invocations and 5XX answers',
          }),
    threshold: 5,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { fn, live, role };
}

/** Bundling hooks that copy files (paths relative to the project root) into a directory of the bundle. */
function copyInto({ directory, files }: { directory: string; files: readonly string[] }) {
  return {
    beforeBundling: (): string[] => [],
    beforeInstall: (): string[] => [],
    afterBundling: (inputDir: string, outputDir: string): string[] => [
      `mkdir -p "${outputDir}/${directory}"`,
      ...files.map((file) => `cp "${inputDir}/${file}" "${outputDir}/${directory}/"`),
    ],
  };
}
