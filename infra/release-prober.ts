import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { CfnApiKey } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { CANARY_MIN_JUDGED_PER_MINUTE } from '../shared/release-check/canary-probes';
import type { WalkFunction } from '../shared/release-check/success-walk';
import { filledSum, ruleFailedInvocations } from './alarm-metrics';
import { LIVE_ALIAS, type PetStoreFunction } from './functions';
import { RELEASE_API_KEY_ID } from './release-key';

/** The environment variable naming the functions the prober reads and probes: name → unqualified ARN. */
export const CANARY_PROBE_FUNCTIONS = 'CANARY_PROBE_FUNCTIONS';

/** How often the prober runs: its rounds are a minute's (shared/release-check/canary-probes.ts). */
export const RELEASE_PROBER_SCHEDULE = Duration.minutes(1);

/**
 * The release prober (functions/releaseProber; docs/releases.md#probes-during-the-canary): what it
 * may do, and, in a stage whose releases have a canary, its schedule. Rights: read the walked
 * functions' `live` alias, invoke their versions, read the release key; nothing else (no table:
 * its requests go through the functions it invokes). Without a canary (staging, all at once) no
 * alias ever shifts, so nothing runs it: it is made all the same, so that both stages hold the same
 * functions and its code ships and is checked the same way.
 */
export function addReleaseProber(
  scope: Construct,
  options: {
    readonly prober: PetStoreFunction;
    readonly probed: Readonly<Record<WalkFunction, PetStoreFunction>>;
    readonly releaseKey: CfnApiKey;
    readonly scheduled: boolean;
  },
): { readonly rule: Rule; readonly gate: Alarm } | undefined {
  const { prober, probed, releaseKey, scheduled } = options;
  const functions = Object.values(probed).map(({ fn }) => fn);
  prober.fn.addEnvironment(
    CANARY_PROBE_FUNCTIONS,
    Stack.of(scope).toJsonString(
      Object.fromEntries(Object.entries(probed).map(([name, { fn }]) => [name, fn.functionArn])),
    ),
  );
  prober.fn.addEnvironment(RELEASE_API_KEY_ID, releaseKey.ref);
  // GetAlias names the function and the alias: both ARNs, so whichever IAM checks, no wildcard.
  prober.role.addToPolicy(
    new PolicyStatement({
      actions: ['lambda:GetAlias'],
      resources: functions.flatMap((fn) => [fn.functionArn, `${fn.functionArn}:${LIVE_ALIAS}`]),
    }),
  );
  prober.role.addToPolicy(
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: functions.map((fn) => `${fn.functionArn}:*`),
    }),
  );
  const { partition, region } = Stack.of(scope);
  prober.role.addToPolicy(
    new PolicyStatement({
      actions: ['apigateway:GET'],
      resources: [`arn:${partition}:apigateway:${region}::/apikeys/${releaseKey.ref}`],
    }),
  );
  Validations.of(prober.role).acknowledge(
    ...functions.map((fn) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(fn).getLogicalId(fn.node.defaultChild as never)}.Arn>:*]`,
      reason:
        "The probed function's qualified ARNs, to invoke the version a release is shifting to (its number changes with each release): this function only.",
    })),
  );
  const rule = scheduled
    ? new Rule(scope, 'ReleaseProberSchedule', {
        description:
          "While a release shifts traffic, sends the new versions the release walk's requests, for their gates (docs/releases.md).",
        schedule: Schedule.rate(RELEASE_PROBER_SCHEDULE),
        // No retry and no late run: the next minute's run comes.
        targets: [new LambdaFunction(prober.live, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
      })
    : undefined;
  // A probed alias moves (a release) once the prober, its rights and its schedule are in place: on
  // the update that brings them, the canary is probed from its first minute too.
  for (const { live } of Object.values(probed))
    live.node.addDependency(prober.role, prober.live, ...(rule === undefined ? [] : [rule]));
  if (rule === undefined) return undefined;
  // A release gate of the probed functions: a canary the prober could not probe as the gates'
  // arithmetic needs (a run that failed: an alias or the key unreadable, too few requests judged;
  // or a run that never came: dropped by Lambda, or EventBridge could not invoke it) is not judged,
  // so it rolls back rather than ship on its customers' requests alone. Not seen: a schedule
  // someone disabled (docs/releases.md#probes-during-the-canary).
  const period = Duration.minutes(5);
  const lost = {
    errors: prober.fn.metricErrors({ period, statistic: 'Sum' }),
    dropped: prober.fn.metric('AsyncEventsDropped', { period, statistic: 'Sum' }),
    refused: ruleFailedInvocations(rule, period),
  };
  const gate = new Alarm(scope, 'CanaryProbesReleaseAlarm', {
    alarmDescription: `A release prober's run failed or never came in the last 5 minutes (an alias or the release key unreadable, fewer than ${CANARY_MIN_JUDGED_PER_MINUTE} requests of a shifting function judged in a run, a run dropped or not invoked): a canary is not judged as its gates need. During a prod release this rolls the new versions back; see the ReleaseProber function's log lines.`,
    metric: new MathExpression({
      expression: filledSum(lost),
      usingMetrics: lost,
      period,
      label: 'prober runs failed or lost',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { rule, gate };
}
