import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IAlarm, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup, type ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { metricsNamespaceOf, REQUEST_METRICS } from '../shared/http/request-metrics';
import type { OperationId } from '../shared/http/routes';
import type { PetStoreFunction } from './functions';
import type { Stage } from './stages';

/**
 * How a new version of a request-path function takes its alias's traffic, per stage: in prod 10 %
 * for 10 minutes, then all, rolled back by CodeDeploy (and the stack update with it) when an alarm
 * it watches fires meanwhile; in staging all at once. Ten minutes, not five: the latency alarm
 * needs five one-minute periods above its threshold (infra/alarms.ts), plus the metrics' delay, to
 * fire while the canary still runs.
 */
export const RELEASE_OF: Record<Stage, { readonly config: ILambdaDeploymentConfig; readonly watchAlarms: boolean }> = {
  prod: { config: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES, watchAlarms: true },
  staging: { config: LambdaDeploymentConfig.ALL_AT_ONCE, watchAlarms: false },
};

/**
 * A function's own release alarm: over 1 % of its alias's invocations failed in 5 minutes (a
 * crash or timeout, and for an operation also an answer of 500 or more), once there were at least
 * 20 invocations and 2 failures, so that one 503 of a quiet stage stops no release. The stage's
 * 5XX rate dilutes a canary of a little-used operation (10 % of 5 % of the traffic is 0.5 %); this
 * does not.
 */
export const RELEASE_ALARM = { percent: 1, minInvocations: 20, minFailures: 2 } as const;

export interface ReleasedFunction {
  readonly function: PetStoreFunction;
  /** The operation whose request metrics count its answers of 500 or more (none: only crashes count). */
  readonly operation?: OperationId;
  /**
   * Whether its failed invocations mean a broken version: not for the authorizer, whose
   * "Unauthorized" is a failed invocation by API Gateway's design (the stage's 5XX alarm sees a
   * failing authorizer: every request it fails is a 503).
   */
  readonly failuresMeanBroken: boolean;
}

export interface ReleaseOptions {
  readonly stage: Stage;
  /** The stage's alarms whose firing during a rollout rolls it back (prod): the 5XX rate and latency. */
  readonly stageAlarms: readonly IAlarm[];
  /**
   * `-c ignoreReleaseAlarms=true`: release a fix while an alarm is already firing (CodeDeploy
   * would otherwise stop the rollout at once, and the fix with it). Still gradual in prod.
   */
  readonly ignoreAlarms: boolean;
}

/**
 * One CodeDeploy application per stage and one deployment group per alias, sharing one service
 * role that may move these aliases and read alarms, nothing else.
 */
export function addReleases(scope: Construct, released: Record<string, ReleasedFunction>, options: ReleaseOptions): Record<string, LambdaDeploymentGroup> {
  const release = RELEASE_OF[options.stage];
  const application = new LambdaApplication(scope, 'Releases');
  const role = new Role(scope, 'ReleasesRole', {
    assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
    description: `CodeDeploy moves the live aliases of ${Stack.of(scope).stackName}'s functions to their new versions.`,
  });
  // What AWS's AWSCodeDeployRoleForLambdaLimited grants for a Lambda deployment, narrowed to this
  // stage's functions (S3 and hook rights left out: no AppSpec file in S3, no hook functions).
  role.addToPolicy(
    new PolicyStatement({
      actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
      resources: Object.values(released).flatMap(({ function: { fn } }) => [fn.functionArn, `${fn.functionArn}:*`]),
    }),
  );
  role.addToPolicy(new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: ['*'] }));
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: 'cloudwatch:DescribeAlarms, to read the state of the alarms that stop a release: read-only, and what AWS\'s own CodeDeploy policy grants it on.',
    },
    ...Object.values(released).map(({ function: { fn } }) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(fn).getLogicalId(fn.node.defaultChild as never)}.Arn>:*]`,
      reason: 'The function\'s qualified ARNs (its live alias and versions), which GetAlias, UpdateAlias and GetProvisionedConcurrencyConfig act on: this function only.',
    })),
  );

  const groups: Record<string, LambdaDeploymentGroup> = {};
  for (const [id, item] of Object.entries(released)) {
    const own = item.failuresMeanBroken ? [releaseAlarm(scope, id, item, options.stage)] : [];
    groups[id] = new LambdaDeploymentGroup(scope, `${id}Release`, {
      application,
      alias: item.function.live,
      // As is: LambdaDeploymentGroup would attach AWSCodeDeployRoleForLambdaLimited (UpdateAlias on any function of the account).
      role: role.withoutPolicyUpdates(),
      deploymentConfig: release.config,
      alarms: release.watchAlarms ? [...options.stageAlarms, ...own] : [],
      ignoreAlarmConfiguration: release.watchAlarms && options.ignoreAlarms,
    });
    // The group is used at the next release only, but its role's rights come first anyway.
    groups[id].node.addDependency(role);
  }
  return groups;
}

function releaseAlarm(scope: Construct, id: string, { function: { live }, operation }: ReleasedFunction, stage: Stage): Alarm {
  const period = Duration.minutes(5);
  const usingMetrics: Record<string, IMetric> = {
    invocations: live.metricInvocations({ period, statistic: 'Sum' }),
    errors: live.metricErrors({ period, statistic: 'Sum' }),
  };
  let failures = 'FILL(errors, 0)';
  if (operation !== undefined) {
    usingMetrics.answers5xx = new Metric({ namespace: metricsNamespaceOf(stage), metricName: REQUEST_METRICS.status5xx, dimensionsMap: { operation }, statistic: 'Sum', period });
    failures = 'FILL(errors, 0) + FILL(answers5xx, 0)';
  }
  const { percent, minInvocations, minFailures } = RELEASE_ALARM;
  return new Alarm(scope, `${id}ReleaseAlarm`, {
    alarmDescription: `${id}: over ${percent} % of its invocations failed in 5 minutes (crashes or timeouts${operation === undefined ? '' : ', and answers of 500 or more'}; at least ${minInvocations} invocations and ${minFailures} failures). During a prod release this rolls the new version back.`,
    metric: new MathExpression({
      // Parenthesized throughout: CloudWatch documents AND and >=, not their precedence.
      expression: `IF((invocations >= ${minInvocations}) AND ((${failures}) >= ${minFailures}), 100 * (${failures}) / invocations, 0)`,
      usingMetrics,
      period,
      label: 'failed invocations, %',
    }),
    threshold: percent,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
