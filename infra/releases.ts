import { Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup, type ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { Stage } from './stages';

/**
 * How a new version of a request-path function takes its alias's traffic, per stage: in prod 10 %
 * for 10 minutes, then all, rolled back by CodeDeploy (and the stack update with it) when the
 * stage's 5XX or latency alarm fires meanwhile; in staging all at once. Ten minutes, not five:
 * the latency alarm needs five one-minute periods above its threshold (infra/alarms.ts), plus the
 * metrics' delay, to fire while the canary still runs.
 */
export const RELEASE_OF: Record<Stage, { readonly config: ILambdaDeploymentConfig; readonly watchAlarms: boolean }> = {
  prod: { config: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES, watchAlarms: true },
  staging: { config: LambdaDeploymentConfig.ALL_AT_ONCE, watchAlarms: false },
};

export interface ReleaseOptions {
  readonly stage: Stage;
  /** The alarms whose firing during a rollout rolls it back (prod). */
  readonly alarms: readonly IAlarm[];
  /**
   * `-c ignoreReleaseAlarms=true`: release a fix while an alarm is already firing (CodeDeploy
   * would otherwise stop the rollout at once, and the fix with it). Still gradual in prod.
   */
  readonly ignoreAlarms: boolean;
}

/** One CodeDeploy application per stage and one deployment group per alias, sharing one service role. */
export function addReleases(scope: Construct, aliases: Record<string, Alias>, options: ReleaseOptions): Record<string, LambdaDeploymentGroup> {
  const release = RELEASE_OF[options.stage];
  const application = new LambdaApplication(scope, 'Releases');
  const role = new Role(scope, 'ReleasesRole', {
    assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
    description: 'CodeDeploy shifts the aliases of this stage\'s functions to their new versions.',
    managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
    reason:
      'AWS\'s own policy for CodeDeploy\'s Lambda deployments, kept up to date by AWS: lambda:GetAlias, UpdateAlias and GetProvisionedConcurrencyConfig on any function of the account, cloudwatch:DescribeAlarms on any alarm, lambda:InvokeFunction only on functions named *CodeDeployHook_* (we have none) and sns:Publish only on topics named CodeDeployTopic_*. Only CodeDeploy can assume the role, and it acts only on the deployment groups of this stack.',
  });
  const groups: Record<string, LambdaDeploymentGroup> = {};
  for (const [id, alias] of Object.entries(aliases)) {
    groups[id] = new LambdaDeploymentGroup(scope, `${id}Release`, {
      application,
      alias,
      role,
      deploymentConfig: release.config,
      alarms: release.watchAlarms ? [...options.alarms] : [],
      ignoreAlarmConfiguration: release.watchAlarms && options.ignoreAlarms,
    });
  }
  return groups;
}
