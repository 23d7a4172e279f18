import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { AUTHORIZER_DIMENSIONS, AUTHORIZER_FUNCTION } from '../shared/auth/refusal-metrics';
import { METRIC_DIMENSIONS, metricsNamespaceOf, REQUEST_METRICS } from '../shared/http/request-metrics';
import { CANARY_PROBE_DIMENSIONS, CANARY_PROBE_METRICS } from '../shared/release-check/canary-probe-metrics';
import { CANARY_MIN_JUDGED_PER_MINUTE, CANARY_ROUNDS_PER_MINUTE } from '../shared/release-check/canary-probes';
import { WALK_FUNCTIONS } from '../shared/release-check/success-walk';
import type { FunctionName } from '../functions/table';
import type { OperationId } from '../shared/http/routes';
import { authorizerRefusals } from './alarm-metrics';
import { P99_LATENCY_ALARM_MS } from './alarms';
import type { WatchedRelease } from './release-notices';
import { LIVE_ALIAS, type PetStoreFunction } from './functions';
import type { Canary, FailureGate, ProbeRate, RefusalGate } from './release-odds';
import type { Stage } from './stages';

/**
 * How a new version of a request-path function takes its alias's traffic, per stage. In prod a
 * quarter of its requests for 30 minutes, then all, rolled back by CodeDeploy (and the stack
 * update with it) when an alarm it watches fires meanwhile: at 50 requests a minute a 10 % canary
 * for 10 minutes gave the gate no whole 5-minute period of the new version's requests to judge
 * (docs/releases.md#the-odds, infra/release-odds.ts). In staging all at once. Either way the
 * check before traffic (functions/releaseCheck) runs first.
 */
export const CANARY_OF: Record<Stage, Canary | undefined> = {
  prod: { percent: 25, minutes: 30 },
  staging: undefined,
};

/**
 * A function's own gate, on its new version alone (the `ExecutedVersion` dimension of its alias's
 * metrics, the operation's 5XX answers by version, and the release prober's requests to the version
 * and their failures: shared/release-check/canary-probes.ts): over 1 % of the version's invocations
 * failed (a crash, a timeout, a throttle, a wrong answer to a probe, and for an operation an answer
 * of 500 or more) in a 5-minute period, once it had at least 10 invocations and 5 failures. With the
 * prober's 60 to 65 requests a minute, at 50 requests a minute to the whole API a version failing 2 % of
 * any one operation's requests is rolled back at least 94.9 % of the time, a good one (0.1 %) at most
 * 0.06 % at any one gate; with 4 failures instead of 5 up to 0.53 %, with 3 up to 2.45 %
 * (docs/releases.md#the-odds).
 */
export const VERSION_GATE: FailureGate = { periodMinutes: 5, percent: 1, minInvocations: 10, minFailures: 5 };

/** The release prober's requests judged a minute to each shifting function, as the gates' arithmetic counts them (shared/release-check/canary-probes.ts). */
export const CANARY_PROBE_RATE: ProbeRate = { least: CANARY_MIN_JUDGED_PER_MINUTE, most: CANARY_ROUNDS_PER_MINUTE };

/**
 * The same rule for slowness: over 1 % of the new version's invocations took longer than the API's
 * own p99 bound (infra/alarms.ts), at least 2 of them, of at least 10 invocations in a period. A
 * count, not a p99: of fewer than 100 invocations the p99 is the slowest one, which a single slow
 * first call to a datastore would decide. Lambda's Duration leaves a cold start's init out.
 */
export const VERSION_LATENCY_GATE: {
  readonly slowMs: number;
  readonly percent: number;
  readonly minInvocations: number;
  readonly minSlow: number;
} = { slowMs: P99_LATENCY_ALARM_MS, percent: 1, minInvocations: 10, minSlow: 2 };

/**
 * The authorizer's gate: its new version refused (401 or 429) more than 3 times the share of its
 * invocations that the old version refused in the same 5 minutes, at least 20 refusals. The old
 * version serving the rest of the canary is the usual level, measured in the same minutes by the
 * same clients: no other hour's traffic to compare with. With these two numbers a good version
 * fires it in at most 0.012 % of periods, whatever the traffic and the refused share (with 10
 * refusals instead of 20: 0.35 %); one that refuses every valid key has a share of 100 %
 * (docs/releases.md#the-authorizer).
 */
export const REFUSAL_GATE: RefusalGate = { factor: 3, minRefusals: 20, minOtherInvocations: 20 };

/** A function released through CodeDeploy, with what its gates judge (functions/table.ts names the released functions: RELEASED_FUNCTIONS). */
export interface ReleaseTarget {
  /** Its name in the table of functions (functions/table.ts), which the check before traffic knows it by. */
  readonly name: FunctionName;
  readonly function: PetStoreFunction;
  /** The operation whose request metrics count its answers of 500 or more (none: only failed invocations count). */
  readonly operation?: OperationId;
  /**
   * What shows its new version broken besides its latency: its failures (crashes, timeouts,
   * throttles, 5XX answers), or for the authorizer its refusals, since its "Unauthorized" is a
   * failed invocation by API Gateway's design (a failing authorizer shows as the stage's 5XX).
   */
  readonly judgedBy: 'failures' | 'refusals';
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
  /** The check before traffic (functions/releaseCheck): CodeDeploy runs it before any request reaches a new version. */
  readonly check: PetStoreFunction;
  /** Where a canary runs: the release prober's gate (infra/release-prober.ts), watched by the functions it probes. */
  readonly canaryProbesGate?: IAlarm;
}

/**
 * One CodeDeploy application per stage and one deployment group per alias, sharing one service
 * role that may move these aliases, run the check before traffic and read alarms, nothing else.
 * Each group's gates judge the new version alone (its own alarms, below), beside the stage's;
 * they are returned, since they notify no one (infra/alarms.ts, notifyOnAlarm), and so are the groups,
 * whose failed or stopped releases do (infra/release-notices.ts).
 */
export function addReleases(
  scope: Construct,
  released: Record<string, ReleaseTarget>,
  options: ReleaseOptions,
): { gates: Alarm[]; groups: Record<string, WatchedRelease> } {
  const canary = CANARY_OF[options.stage];
  const config =
    canary === undefined
      ? LambdaDeploymentConfig.ALL_AT_ONCE
      : // No name: CloudFormation makes one per stack, so the stages of an account never collide.
        new LambdaDeploymentConfig(scope, 'ReleaseCanary', {
          trafficRouting: TrafficRouting.timeBasedCanary({
            percentage: canary.percent,
            interval: Duration.minutes(canary.minutes),
          }),
        });
  const application = new LambdaApplication(scope, 'Releases');
  const role = new Role(scope, 'ReleasesRole', {
    assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
    description: `CodeDeploy moves the live aliases of ${Stack.of(scope).stackName}'s functions to their new versions.`,
  });
  // What AWS's AWSCodeDeployRoleForLambdaLimited grants for a Lambda deployment, narrowed to this
  // stage's functions and its one hook (no S3 rights: no AppSpec file in S3).
  role.addToPolicy(
    new PolicyStatement({
      actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
      resources: Object.values(released).flatMap(({ function: { fn } }) => [fn.functionArn, `${fn.functionArn}:*`]),
    }),
  );
  // CodeDeploy invokes the hook unqualified: its $LATEST, which this stack update has already made.
  role.addToPolicy(
    new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [options.check.fn.functionArn] }),
  );
  role.addToPolicy(new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: ['*'] }));
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        "cloudwatch:DescribeAlarms, to read the state of the alarms that stop a release: read-only, and what AWS's own CodeDeploy policy grants it on.",
    },
    ...Object.values(released).map(({ function: { fn } }) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(fn).getLogicalId(fn.node.defaultChild as never)}.Arn>:*]`,
      reason:
        "The function's qualified ARNs (its live alias and versions), which GetAlias, UpdateAlias and GetProvisionedConcurrencyConfig act on: this function only.",
    })),
  );

  const gates: Alarm[] = [];
  const groups: Record<string, WatchedRelease> = {};
  for (const [id, item] of Object.entries(released)) {
    // Only where a canary watches them: all at once (staging), no gate could stop anything.
    const own =
      canary === undefined
        ? []
        : [
            versionLatencyGate(scope, id, item),
            ...(item.judgedBy === 'failures'
              ? [versionFailureGate(scope, id, item, options.stage)]
              : [refusalGate(scope, id, item, options.stage), authorizerProbeGate(scope, id, item, options.stage)]),
          ];
    gates.push(...own);
    const group = new LambdaDeploymentGroup(scope, `${id}Release`, {
      application,
      alias: item.function.live,
      // As is: LambdaDeploymentGroup would attach AWSCodeDeployRoleForLambdaLimited (UpdateAlias on any function of the account).
      role: role.withoutPolicyUpdates(),
      deploymentConfig: config,
      preHook: options.check.fn,
      alarms:
        canary === undefined
          ? []
          : [
              ...options.stageAlarms,
              ...own,
              ...(options.canaryProbesGate !== undefined && isProbed(item.name) ? [options.canaryProbesGate] : []),
            ],
      ignoreAlarmConfiguration: canary !== undefined && options.ignoreAlarms,
    });
    // The alias moves (a release) once CodeDeploy's rights, the hook's code, its list of versions
    // and its rights are all updated. (Not the group on CodeDeploy's rights: those name the hook,
    // whose rights name the groups.)
    item.function.live.node.addDependency(role, options.check.fn, options.check.role);
    groups[id] = { group, function: item.function };
  }
  grantReleaseCheck(options.check, released);
  return { gates, groups };
}

/**
 * The check's rights: invoke the released functions' versions, and report to CodeDeploy (each
 * group grants that: LambdaDeploymentGroup's preHook); nothing else. Their qualified ARNs (`:*`),
 * not this update's versions by number: a policy that changed seconds before CodeDeploy runs the
 * check might not have reached IAM everywhere yet, and would fail a good release.
 * RELEASE_CHECK_TARGETS tells it which versions (function name → qualified ARN).
 */
function grantReleaseCheck(check: PetStoreFunction, released: Record<string, ReleaseTarget>): void {
  check.role.addToPolicy(
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: Object.values(released).map(({ function: { fn } }) => `${fn.functionArn}:*`),
    }),
  );
  Validations.of(check.role).acknowledge(
    ...Object.values(released).map(({ function: { fn } }) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(fn).getLogicalId(fn.node.defaultChild as never)}.Arn>:*]`,
      reason:
        "The released function's qualified ARNs, to invoke the version a release checks before it takes traffic: this function only, and a policy that does not change with each release.",
    })),
  );
  check.fn.addEnvironment(
    RELEASE_CHECK_TARGETS,
    Stack.of(check.fn).toJsonString(
      Object.fromEntries(
        Object.values(released).map(({ name, function: { fn } }) => [name, fn.currentVersion.functionArn]),
      ),
    ),
  );
}

/** The environment variable naming the versions the check invokes. */
export const RELEASE_CHECK_TARGETS = 'RELEASE_CHECK_TARGETS';

/** One of Lambda's metrics of the new version alone: its alias's, by the version that ran. */
function versionMetric({ fn }: PetStoreFunction, metricName: string, statistic: string, period: Duration): IMetric {
  return new Metric({
    namespace: 'AWS/Lambda',
    metricName,
    dimensionsMap: {
      FunctionName: fn.functionName,
      Resource: `${fn.functionName}:${LIVE_ALIAS}`,
      ExecutedVersion: fn.currentVersion.version,
    },
    statistic,
    period,
  });
}

/** The release prober's count of a version's requests (`sent`) or of their failures that its own metrics do not count (`failed`). */
function canaryProbeMetric(
  { name, function: released }: ReleaseTarget,
  which: keyof typeof CANARY_PROBE_METRICS,
  stage: Stage,
  period: Duration,
): IMetric {
  return new Metric({
    namespace: metricsNamespaceOf(stage),
    metricName: CANARY_PROBE_METRICS[which],
    dimensionsMap: {
      [CANARY_PROBE_DIMENSIONS.function]: name,
      [CANARY_PROBE_DIMENSIONS.version]: released.fn.currentVersion.version,
    },
    statistic: 'Sum',
    period,
  });
}

const isProbed = (name: FunctionName): boolean => (WALK_FUNCTIONS as readonly string[]).includes(name);

function versionFailureGate(scope: Construct, id: string, target: ReleaseTarget, stage: Stage): Alarm {
  const { function: released, operation } = target;
  const period = Duration.minutes(VERSION_GATE.periodMinutes);
  const usingMetrics: Record<string, IMetric> = {
    aliasInvocations: versionMetric(released, 'Invocations', 'Sum', period),
    errors: versionMetric(released, 'Errors', 'Sum', period),
    throttles: versionMetric(released, 'Throttles', 'Sum', period),
  };
  let invocations = 'FILL(aliasInvocations, 0)';
  let failures = 'FILL(errors, 0) + FILL(throttles, 0)';
  if (isProbed(target.name)) {
    usingMetrics.probes = canaryProbeMetric(target, 'sent', stage, period);
    usingMetrics.failedProbes = canaryProbeMetric(target, 'failed', stage, period);
    invocations += ' + FILL(probes, 0)';
    failures += ' + FILL(failedProbes, 0)';
  }
  if (operation !== undefined) {
    usingMetrics.answers5xx = new Metric({
      namespace: metricsNamespaceOf(stage),
      metricName: REQUEST_METRICS.status5xx,
      dimensionsMap: {
        [METRIC_DIMENSIONS.operation]: operation,
        [METRIC_DIMENSIONS.version]: released.fn.currentVersion.version,
      },
      statistic: 'Sum',
      period,
    });
    failures += ' + FILL(answers5xx, 0)';
  }
  const { percent, minInvocations, minFailures } = VERSION_GATE;
  return new Alarm(scope, `${id}ReleaseAlarm`, {
    alarmDescription: `${id}: its version now live (or being released): over ${percent} % of its invocations failed in 5 minutes (crashes, timeouts, throttles${operation === undefined ? '' : ', answers of 500 or more'}${isProbed(target.name) ? ", the release prober's requests it failed" : ''}; at least ${minInvocations} invocations and ${minFailures} failures). During a prod release this rolls the new version back.`,
    metric: new MathExpression({
      // Parenthesized throughout: CloudWatch documents AND and >=, not their precedence.
      expression: `IF(((${invocations}) >= ${minInvocations}) AND ((${failures}) >= ${minFailures}), 100 * (${failures}) / (${invocations}), 0)`,
      usingMetrics,
      period,
      label: 'failed invocations of the version, %',
    }),
    threshold: percent,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

function versionLatencyGate(scope: Construct, id: string, { function: released }: ReleaseTarget): Alarm {
  const period = Duration.minutes(VERSION_GATE.periodMinutes);
  const { slowMs, percent, minInvocations, minSlow } = VERSION_LATENCY_GATE;
  return new Alarm(scope, `${id}ReleaseLatencyAlarm`, {
    alarmDescription: `${id}: its version now live (or being released): over ${percent} % of its invocations took over ${slowMs} ms in 5 minutes (at least ${minInvocations} invocations and ${minSlow} slow ones). During a prod release this rolls the new version back.`,
    metric: new MathExpression({
      expression: `IF((invocations >= ${minInvocations}) AND (FILL(slow, 0) >= ${minSlow}), 100 * FILL(slow, 0) / invocations, 0)`,
      // TC(a:): the trimmed count, here of the invocations that lasted over a milliseconds (the lower bound excluded).
      usingMetrics: {
        invocations: versionMetric(released, 'Invocations', 'Sum', period),
        slow: versionMetric(released, 'Duration', `TC(${slowMs}:)`, period),
      },
      period,
      label: 'slow invocations of the version, %',
    }),
    threshold: percent,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

function refusalGate(scope: Construct, id: string, { function: released }: ReleaseTarget, stage: Stage): Alarm {
  const period = Duration.minutes(VERSION_GATE.periodMinutes);
  const { factor, minRefusals, minOtherInvocations } = REFUSAL_GATE;
  return new Alarm(scope, `${id}ReleaseRefusalAlarm`, {
    alarmDescription: `${id}: while a new version is being released, it refused (401 or 429) over ${factor} times the share of its invocations that the old version refused in the same 5 minutes (at least ${minRefusals} refusals). During a prod release this rolls the new version back; between releases it stays quiet (no old version serves).`,
    metric: new MathExpression({
      // Shares compared without dividing (no old invocations: no comparison, 0).
      expression:
        `IF((FILL(newRefusals, 0) >= ${minRefusals}) AND ((FILL(allInvocations, 0) - FILL(newInvocations, 0)) >= ${minOtherInvocations}) AND ` +
        `(FILL(newRefusals, 0) * (FILL(allInvocations, 0) - FILL(newInvocations, 0)) > ${factor} * (FILL(allRefusals, 0) - FILL(newRefusals, 0)) * FILL(newInvocations, 0)), 1, 0)`,
      usingMetrics: {
        newRefusals: authorizerRefusals(
          stage,
          {
            [AUTHORIZER_DIMENSIONS.function]: AUTHORIZER_FUNCTION,
            [AUTHORIZER_DIMENSIONS.version]: released.fn.currentVersion.version,
          },
          period,
        ),
        allRefusals: authorizerRefusals(stage, { [AUTHORIZER_DIMENSIONS.function]: AUTHORIZER_FUNCTION }, period),
        newInvocations: versionMetric(released, 'Invocations', 'Sum', period),
        allInvocations: released.live.metricInvocations({ period, statistic: 'Sum' }),
      },
      period,
      label: 'new version refusing far more than the old (1)',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * The authorizer's gate at launch traffic: the release prober sends its new version the release key
 * (shared/release-check/canary-probes.ts), which a good version allows; over 1 % of those refused (or
 * answered otherwise than the Allow the walk expects), at least 5 of at least 10, in a 5-minute
 * period. Unlike the refusal gate it needs no customers: the prober's 60 to 65 requests a minute are
 * enough (docs/releases.md#the-authorizer).
 */
function authorizerProbeGate(scope: Construct, id: string, target: ReleaseTarget, stage: Stage): Alarm {
  const period = Duration.minutes(VERSION_GATE.periodMinutes);
  const { percent, minInvocations, minFailures } = VERSION_GATE;
  return new Alarm(scope, `${id}ReleaseProbeAlarm`, {
    alarmDescription: `${id}: while a new version is being released, it refused (or answered wrongly) over ${percent} % of the release key's requests the release prober sent it in 5 minutes (at least ${minInvocations} requests and ${minFailures} failures). During a prod release this rolls the new version back.`,
    metric: new MathExpression({
      expression: `IF((FILL(probes, 0) >= ${minInvocations}) AND (FILL(failedProbes, 0) >= ${minFailures}), 100 * FILL(failedProbes, 0) / FILL(probes, 0), 0)`,
      usingMetrics: {
        probes: canaryProbeMetric(target, 'sent', stage, period),
        failedProbes: canaryProbeMetric(target, 'failed', stage, period),
      },
      period,
      label: 'the release key refused by the version, %',
    }),
    threshold: percent,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
