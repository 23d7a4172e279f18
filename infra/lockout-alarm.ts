import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { OPERATION_IDS } from '../functions/table';
import { AUTHORIZER_DIMENSIONS, AUTHORIZER_FUNCTION } from '../shared/auth/refusal-metrics';
import { REQUEST_METRICS } from '../shared/http/request-metrics';
import { authorizerRefusals, filledSum, operationMetric } from './alarm-metrics';
import type { Stage } from './stages';

/**
 * When the stage's authorizer locks its customers out: in each of 2 periods of 5 minutes in a row,
 * it refused (401 or 429) at least 20 requests and refused > 9 × served, where served are the
 * requests the operations counted (every request the authorizer let through reaches one, cached
 * answer or not). Refusals are counted per call of the authorizer: a 429 is a Deny, which API
 * Gateway caches 30 s per token and address, and a 401 may be cached too (not verified:
 * docs/keys-and-plans.md), so a locked-out client adds at most 10 refusals a period, and the
 * alarm needs two or more clients (tokens or addresses) sending through each period.
 * A new authorizer that refuses every key fires it 10 to 15 minutes after it takes all the
 * traffic (after prod's canary, at once in staging): the case the release gate cannot see, since
 * it compares the new version with the old one beside it (infra/releases.ts). During a canary the
 * old version still lets customers through, and the alarm stays quiet; so it is not among the
 * alarms a release watches (firing already, it would stop the fix's release). Its false alarm: a
 * quiet period with bad keys, such as a client polling with a revoked key every 10 s while
 * fewer than 4 requests are served in those 5 minutes (docs/releases.md#no-silent-lock-out).
 */
export const LOCKOUT_ALARM = { refusedPercent: 90, minRefusals: 20, periodMinutes: 5, periods: 2 } as const;

export function addLockoutAlarm(scope: Construct, stage: Stage): Alarm {
  const { refusedPercent, minRefusals, periodMinutes, periods } = LOCKOUT_ALARM;
  const period = Duration.minutes(periodMinutes);
  // Each operation's requests (its [operation] dimension set: every request it counted, keyed or not).
  const served = Object.fromEntries(
    OPERATION_IDS.map((operation, index) => [
      `served${index}`,
      operationMetric(stage, operation, REQUEST_METRICS.requests, period),
    ]),
  );
  return new Alarm(scope, 'AuthorizerLockoutAlarm', {
    alarmDescription:
      `The authorizer refused over ${refusedPercent} % of the requests that reached it (at least ${minRefusals} refusals) in each of ${periods} periods of ${periodMinutes} minutes in a row: ` +
      "customers may be locked out (a release of the authorizer, the key registry or its mirror), or only clients with bad keys were active. Compare the authorizer's refusals with the operations' requests on the dashboard, and its log lines (reason of each refusal). docs/releases.md#no-silent-lock-out",
    metric: new MathExpression({
      // Shares compared without dividing; parenthesized throughout (CloudWatch documents no precedence of AND).
      expression: `IF((FILL(refused, 0) >= ${minRefusals}) AND (100 * FILL(refused, 0) > ${refusedPercent} * (FILL(refused, 0) + ${filledSum(served)})), 1, 0)`,
      usingMetrics: {
        refused: authorizerRefusals(stage, { [AUTHORIZER_DIMENSIONS.function]: AUTHORIZER_FUNCTION }, period),
        ...served,
      },
      period,
      label: 'authorizer refusing nearly every request (1)',
    }),
    threshold: 1,
    evaluationPeriods: periods,
    datapointsToAlarm: periods,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
