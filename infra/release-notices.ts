import { Annotations, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { AlarmDestination } from './alarm-destination';
import { filledSum, ruleFailedInvocations } from './alarm-metrics';
import type { PetStoreFunction } from './functions';

/** A release CodeDeploy runs: its deployment group and the function whose alias it moves. */
export interface WatchedRelease {
  readonly group: ILambdaDeploymentGroup;
  readonly function: PetStoreFunction;
}

/** CodeDeploy's states of a deployment that did not finish: its alias stays on, or returns to, the version before, and CodeDeploy tells no one. */
export const ENDED_UNRELEASED = ['FAILURE', 'STOP'] as const;

/**
 * A release that failed (its check before traffic, a gate, a CodeDeploy error) or was stopped (a
 * stage alarm, a failed stack update) notifies the alarm topic, and the stage's existing topic if
 * it has one, with the function and the version it tried to release: the gates notify no one
 * (infra/alarms.ts, notifyOnAlarm), and CodeDeploy's rollback is silent. One EventBridge rule per
 * deployment group, on CodeDeploy's state-change events (free: an AWS service's events). The
 * version is written into the rule's message by the stack update that publishes it, and the alias
 * moves only after the rule is updated.
 */
export function noticeEndedReleases(
  scope: Construct,
  releases: Record<string, WatchedRelease>,
  alarms: { topic: Topic; key: IKey },
  destination: AlarmDestination,
): void {
  const { account, stackName } = Stack.of(scope);
  // EventBridge publishes as this role, for this account's rules only: the topic's policy gains no
  // statement for the events service, which would let another account's rules publish to it.
  const role = new Role(scope, 'ReleaseNoticesRole', {
    assumedBy: new ServicePrincipal('events.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
    description: `EventBridge publishes ${stackName}'s failed or stopped releases to its alarm topic.`,
  });
  // What SNS needs of a publisher to a topic encrypted with a key of its own.
  alarms.key.grant(role, 'kms:Decrypt', 'kms:GenerateDataKey*');
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    reason: 'What SNS needs of a publisher to a topic encrypted with a customer managed key, on that one key.',
  });
  // An existing topic: this role may publish to it; its own policy and key must let it (docs/releases.md#a-release-that-does-not-finish).
  const existing: ITopic | undefined =
    destination.topicArn === undefined
      ? undefined
      : Topic.fromTopicArn(scope, 'ReleaseNoticeDestinationTopic', destination.topicArn);
  const rules: Rule[] = [];
  for (const [id, { group, function: released }] of Object.entries(releases)) {
    const message = RuleTargetInput.fromText(
      `${stackName}: the release of ${id} version ${released.fn.currentVersion.version} did not finish (CodeDeploy state ${EventField.fromPath('$.detail.state')}, deployment ${EventField.fromPath('$.detail.deploymentId')}): ` +
        'its live alias stays on, or returns to, the version before. The check before traffic probes every function a deploy changes, so one bad version stops the release of each; ' +
        "why: the deployment's events in the CodeDeploy console, the check before traffic's log, the release gates (docs/releases.md#a-release-that-does-not-finish).",
    );
    const rule = new Rule(scope, `${id}ReleaseEnded`, {
      description: `${id}: a release that failed or was stopped notifies the alarm topic.`,
      eventPattern: {
        source: ['aws.codedeploy'],
        detailType: ['CodeDeploy Deployment State-change Notification'],
        detail: {
          application: [group.application.applicationName],
          deploymentGroup: [group.deploymentGroupName],
          state: [...ENDED_UNRELEASED],
        },
      },
      targets: [alarms.topic, ...(existing === undefined ? [] : [existing])].map(
        (topic) => new SnsTopic(topic, { message, role }),
      ),
    });
    // The stack and its rules are in one account and region, which CDK cannot tell of a stack with no fixed environment.
    Annotations.of(rule).acknowledgeWarning(
      '@aws-cdk/aws-events:ruleUnresolvedEnvironment',
      'The rule, the topic and the deployment groups are in the same stack.',
    );
    // The rule names the version this update publishes, and may publish, before CodeDeploy may fail it.
    released.live.node.addDependency(rule, role);
    rules.push(rule);
  }
  // A notice EventBridge could not deliver (the role, the key, an existing topic's policy) shows only
  // in the rules' FailedInvocations: an alarm on them, which reaches the topic by CloudWatch's own path.
  const failed = Object.fromEntries(rules.map((rule, index) => [`r${index}`, ruleFailedInvocations(rule)]));
  new Alarm(scope, 'ReleaseNoticeFailedAlarm', {
    alarmDescription:
      "EventBridge could not deliver the notice of a release that did not finish to a topic (the ReleaseNoticesRole's rights, the alarm topic's key, or an existing topic's policy and key). See the CodeDeploy console for the release, and docs/releases.md#a-release-that-does-not-finish.",
    metric: new MathExpression({
      expression: filledSum(failed),
      usingMetrics: failed,
      period: Duration.minutes(5),
      label: 'notices not delivered',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  new CfnOutput(scope, 'ReleaseNoticesRoleArn', {
    description:
      'EventBridge publishes the notices of releases that did not finish as this role: an existing topic of another account, or one with a key of its own, must allow it.',
    value: role.roleArn,
  });
}
