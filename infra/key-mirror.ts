import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { API_ID_TAG, KEY_MIRROR_METRICS } from '../shared/auth/key-mirror';
import { ruleFailedInvocations } from './alarm-metrics';
import type { PetStoreFunction } from './functions';

/** How often the key mirror copies API Gateway's keys and usage plans into the registry. */
export const KEY_MIRROR_SCHEDULE = Duration.minutes(1);

/**
 * The key mirror's rights on API Gateway's management API, read-only, as narrow as IAM allows:
 * - the list of usage plans (`/usageplans`): a listing cannot be narrowed; it holds no key values;
 * - the keys, with their values, of the stage's four usage plans by id, and of any other usage
 *   plan only while it is tagged `petstore:api-id` = this API (a custom Enterprise plan made in
 *   the console): IAM's `aws:ResourceTag` condition, a usage plan's keys inheriting its tags.
 * Not the region's key list (`/apikeys`): its right would give every key's value, IAM having no
 * condition on `includeValues`; a disabled key is refused by API Gateway itself.
 */
export function grantKeyMirrorReads(mirror: PetStoreFunction, api: RestApi, stagePlans: readonly UsagePlan[]): void {
  const { partition, region } = Stack.of(api);
  const managementApi = `arn:${partition}:apigateway:${region}::`;
  const statements = [
    new PolicyStatement({
      actions: ['apigateway:GET'],
      resources: [
        `${managementApi}/usageplans`,
        ...stagePlans.map((plan) => `${managementApi}/usageplans/${plan.usagePlanId}/keys`),
      ],
    }),
    new PolicyStatement({
      actions: ['apigateway:GET'],
      resources: [`${managementApi}/usageplans/*/keys`],
      conditions: { StringEquals: { [`aws:ResourceTag/${API_ID_TAG}`]: api.restApiId } },
    }),
  ];
  for (const statement of statements) mirror.fn.addToRolePolicy(statement);
}

/**
 * The schedule that runs the mirror (its `live` alias) every minute, without retries, and its
 * alarm: the mirror went wrong in the last 5 minutes (a failed run, a run that found a usage plan
 * it cannot use, an invocation Lambda dropped or EventBridge could not make) and no run
 * succeeded. A stage whose mirror has not run yet has none of these, so a new stage is not in
 * alarm; a schedule someone disabled is not seen either (docs/deploying-and-operating.md).
 */
export function scheduleKeyMirror(scope: Construct, mirror: PetStoreFunction, apiId: string): Alarm {
  const rule = new Rule(scope, 'KeyMirrorSchedule', {
    description: 'Copies the API keys and usage plans of the stage into the key registry.',
    schedule: Schedule.rate(KEY_MIRROR_SCHEDULE),
    targets: [new LambdaFunction(mirror.live, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
  });
  const period = Duration.minutes(5);
  const runs = (statistic: string) =>
    new Metric({
      namespace: KEY_MIRROR_METRICS.namespace,
      metricName: KEY_MIRROR_METRICS.succeeded,
      dimensionsMap: { [KEY_MIRROR_METRICS.apiIdDimension]: apiId },
      statistic,
      period,
    });
  return new Alarm(scope, 'KeyMirrorAlarm', {
    alarmDescription:
      "The key mirror went wrong in the last 5 minutes and no run succeeded (runs failing, finding a usage plan of the stage it cannot use, or not being made): console changes to keys and plans are not reaching the service; the last good copy keeps serving. See the KeyMirror function's log lines.",
    metric: new MathExpression({
      // Parenthesized throughout: CloudWatch documents AND and the comparisons, not their precedence.
      expression:
        'IF(((FILL(errors, 0) + FILL(dropped, 0) + FILL(refused, 0) + FILL(runs, 0) - FILL(succeeded, 0)) > 0) AND (FILL(succeeded, 0) == 0), 1, 0)',
      usingMetrics: {
        errors: mirror.fn.metricErrors({ period, statistic: 'Sum' }),
        dropped: mirror.fn.metric('AsyncEventsDropped', { period, statistic: 'Sum' }),
        refused: ruleFailedInvocations(rule, period),
        runs: runs('SampleCount'),
        succeeded: runs('Sum'),
      },
      period,
      label: 'went wrong without a success',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/** The acknowledgement of the mirror's one wildcard, saying what remains of its rights. */
export function acknowledgeKeyMirrorReads(mirror: PetStoreFunction): void {
  Validations.of(mirror.role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/usageplans/*/keys]',
    reason: `Read-only. The keys (with their values) of any usage plan, but only while it is tagged ${API_ID_TAG} with this API's id (custom Enterprise plans are made in the console, so their ids are not known at deploy time); the stage's own four plans are granted by id. What remains wide: the list of the region's usage plans (names, stages, limits and tags; no key). No right to /apikeys.`,
  });
}
