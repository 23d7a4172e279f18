import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { AlarmDestination } from './alarm-destination';
import { filledSum } from './alarm-metrics';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { tableDefinition } from '../shared/dynamodb/table-definition';

/**
 * p99 latency at the API above this for 5 minutes running raises an alarm. A warm request waits
 * for at most two DynamoDB round trips (a few ms each in the region) and the authorizer's answer
 * is cached; a cold start adds about half a second, so even a minute whose p99 is a cold start
 * stays well under it. 1.5 s in each of five one-minute periods is a slow datastore, a slow
 * authorizer, requests queuing for concurrency or a slow new version, well before the 10 s
 * function timeout, and soon enough to roll a prod canary back (infra/releases.ts).
 */
export const P99_LATENCY_ALARM_MS = 1_500;
export const P99_LATENCY_ALARM_MINUTES = 5;

/** Over this share of answers being 5XX in 5 minutes raises an alarm (a 500 is always our bug). */
export const SERVER_ERROR_RATE_ALARM_PERCENT = 1;

/**
 * What a quiet stage must see before its stage-wide alarms judge it, so that one stray answer in a
 * quiet hour rolls no release back: the 5XX rate at least 100 answers and 5 of them 5XX in its 5
 * minutes (at 50 requests a minute, 250 answers: 5 is 2 %); the latency a minute of at least 20
 * answers, and 3 such minutes of the 5 above the threshold: a minute without enough answers
 * counts as fast, so a quiet minute cannot fire it, and two quiet minutes cannot hide three slow ones.
 */
export const STAGE_ALARM_MINIMUMS = { answers: 100, serverErrors: 5, answersAMinute: 20, slowMinutes: 3 } as const;

export interface OperationsAlarms {
  readonly topic: Topic;
  /** The topic's key, which whatever publishes to it must be allowed to use (infra/release-notices.ts). */
  readonly topicKey: Key;
  /** The alarms that stop and roll back a release in prod: the API's 5XX rate and its latency. */
  readonly release: readonly Alarm[];
}

/**
 * One SNS topic per stage that every alarm of the stack notifies (but the release gates: infra/releases.ts), encrypted with a key of its own
 * (CloudWatch may use it; the AWS managed SNS key would not let CloudWatch publish), exported as
 * `AlarmTopicArn` so that an operator subscribes once (and the stage's alarm destination,
 * infra/alarm-destination.ts: an address subscribed, an existing topic notified too). Also the stage's alarms on the API's 5XX rate, its p99 latency, any DynamoDB
 * throttling and any throttled function. None fires for a stage that is merely new: where a
 * metric has no data, nothing is wrong yet.
 */
export function addOperationsAlarms(
  scope: Construct,
  {
    api,
    table,
    functions,
    retain,
    destination,
  }: { api: RestApi; table: TableV2; functions: readonly IFunction[]; retain: boolean; destination: AlarmDestination },
): OperationsAlarms {
  const period = Duration.minutes(5);
  const serverErrors = new Alarm(scope, 'Api5xxAlarm', {
    alarmDescription: `Over ${SERVER_ERROR_RATE_ALARM_PERCENT} % of the API's answers were 5XX in 5 minutes (of at least ${STAGE_ALARM_MINIMUMS.answers} answers, ${STAGE_ALARM_MINIMUMS.serverErrors} of them 5XX): a failing authorizer (every keyed request gets 503), functions failing or timing out, or the datastore out of reach (503s). See the functions' error alarms and log lines (level error).`,
    metric: new MathExpression({
      // Parenthesized throughout: CloudWatch documents AND and >=, not their precedence.
      expression: `IF((requests >= ${STAGE_ALARM_MINIMUMS.answers}) AND (errors >= ${STAGE_ALARM_MINIMUMS.serverErrors}), 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: 'Sum' }),
        requests: api.metricCount({ period, statistic: 'Sum' }),
      },
      period,
      label: '5XX answers, % of all',
    }),
    threshold: SERVER_ERROR_RATE_ALARM_PERCENT,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const latency = new Alarm(scope, 'ApiLatencyAlarm', {
    alarmDescription: `The API's p99 latency was above ${P99_LATENCY_ALARM_MS} ms in ${STAGE_ALARM_MINIMUMS.slowMinutes} of ${P99_LATENCY_ALARM_MINUTES} minutes (each of at least ${STAGE_ALARM_MINIMUMS.answersAMinute} answers): not cold starts but a slow datastore, a slow authorizer, a slow new version, or requests waiting for concurrency. Compare the functions' durations and DynamoDB's latency.`,
    metric: new MathExpression({
      // A minute with too few answers counts as fast (0): it cannot fire the alarm, and with 3 slow minutes of 5 enough, two quiet ones cannot hide the slow ones.
      expression: `IF(requests >= ${STAGE_ALARM_MINIMUMS.answersAMinute}, p99, 0)`,
      usingMetrics: {
        p99: api.metricLatency({ period: Duration.minutes(1), statistic: 'p99' }),
        requests: api.metricCount({ period: Duration.minutes(1), statistic: 'Sum' }),
      },
      period: Duration.minutes(1),
      label: 'p99 latency (ms) of minutes with enough answers',
    }),
    threshold: P99_LATENCY_ALARM_MS,
    evaluationPeriods: P99_LATENCY_ALARM_MINUTES,
    datapointsToAlarm: STAGE_ALARM_MINIMUMS.slowMinutes,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const throttles = (metricName: string, dimensionsMap: Record<string, string>) =>
    new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, statistic: 'Sum', period });
  // The table's, then each index's (an index's write throttling throttles the table's writes).
  const throttleMetrics: Record<string, Metric> = {
    tableReads: throttles('ReadThrottleEvents', { TableName: table.tableName }),
    tableWrites: throttles('WriteThrottleEvents', { TableName: table.tableName }),
  };
  for (const { indexName } of tableDefinition.globalSecondaryIndexes) {
    throttleMetrics[`${indexName}Reads`] = throttles('ReadThrottleEvents', {
      TableName: table.tableName,
      GlobalSecondaryIndexName: indexName,
    });
    throttleMetrics[`${indexName}Writes`] = throttles('WriteThrottleEvents', {
      TableName: table.tableName,
      GlobalSecondaryIndexName: indexName,
    });
  }
  new Alarm(scope, 'DynamoDbThrottleAlarm', {
    alarmDescription:
      "DynamoDB throttled requests of the table or one of its indexes: on demand, a hot partition (the pets, the id sequence, one key's counter, a status of the status index, the key index while many keys change at once) or an account limit. Clients got 503 with Retry-After; throttling of the key index delays the key mirror instead. See docs/scale-and-cost.md and the table's metrics.",
    // DynamoDB publishes a throttle metric only when something was throttled: each term is filled
    // with 0, or the sum would have no value unless all were throttled at once.
    metric: new MathExpression({
      expression: filledSum(throttleMetrics),
      usingMetrics: throttleMetrics,
      period,
      label: 'throttled events',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  // Lambda publishes Throttles only for a function that was throttled: each term is filled with 0.
  const throttled = Object.fromEntries(
    functions.map((fn, index) => [`f${index}`, fn.metricThrottles({ period, statistic: 'Sum' })]),
  );
  new Alarm(scope, 'FunctionThrottleAlarm', {
    alarmDescription:
      "Lambda refused to run a function of this stage for lack of concurrency: the account's concurrent executions quota (shared by every stage and function of the account and region) is used up. Clients got 500 or 503. Ask for a higher quota in Service Quotas (docs/first-deploy.md).",
    metric: new MathExpression({
      expression: filledSum(throttled),
      usingMetrics: throttled,
      period,
      label: 'throttled invocations',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  const key = new Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the pet store alarm topic of this stage.',
    enableKeyRotation: true,
    removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  const { account, region, partition } = Stack.of(scope);
  // CloudWatch encrypts what it publishes with this key: for this account's alarms only (a
  // confused deputy in another account could otherwise use it through CloudWatch).
  key.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
  );
  const topic = new Topic(scope, 'AlarmTopic', {
    displayName: `Pet store alarms (${Stack.of(scope).stackName})`,
    masterKey: key,
    enforceSSL: true,
  });
  // The TLS-only policy replaces SNS's default one: CloudWatch must be allowed to publish, for
  // this account's alarms only.
  topic.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        StringEquals: { 'aws:SourceAccount': account },
      },
    }),
  );
  if (destination.email !== undefined) topic.addSubscription(new EmailSubscription(destination.email));
  if (destination.email === undefined && destination.topicArn === undefined) {
    // Only a stage that may go without (ALARM_DESTINATION_REQUIRED): say so at every synth.
    Annotations.of(scope).addInfo(
      'No alarm destination for this stage (-c alarmEmail=, -c alarmTopicArn=, or "alarmDestinations" in cdk.json\'s context): its alarms reach only the AlarmTopicArn topic, and whoever subscribed to it by hand.',
    );
  }
  new CfnOutput(scope, 'AlarmTopicArn', {
    description:
      'Every alarm of this stage but the release gates, and every release that did not finish, notifies this SNS topic: subscribe to it once.',
    value: topic.topicArn,
  });
  return { topic, topicKey: key, release: [serverErrors, latency] };
}

/** Every alarm in the scope but `quiet`, those made elsewhere included, notifies the topic, and the destination's existing topic if any (call last). */
export function notifyOnAlarm(
  scope: Construct,
  topic: Topic,
  destination: AlarmDestination,
  quiet: readonly Alarm[] = [],
): void {
  const actions = [
    new SnsAction(topic),
    ...(destination.topicArn === undefined
      ? []
      : [new SnsAction(Topic.fromTopicArn(scope, 'AlarmDestinationTopic', destination.topicArn))]),
  ];
  for (const construct of scope.node.findAll())
    if (construct instanceof Alarm && !quiet.includes(construct)) construct.addAlarmAction(...actions);
}
