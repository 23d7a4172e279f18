import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { OPERATION_IDS } from '../functions/table';
import { AUTHORIZER_DIMENSIONS, AUTHORIZER_FUNCTION, AUTHORIZER_METRICS } from '../shared/auth/refusal-metrics';
import { METRIC_DIMENSIONS, metricsNamespaceOf, REQUEST_METRICS } from '../shared/http/request-metrics';
import type { Stage } from './stages';

/**
 * When the stage's authorizer locks its customers out: in each of 2 periods of 5 minutes in a row,
 * it refused (401 or 429) at least 20 requests and over 90 % of the requests that reached it or an
 * operation: refused / (refused + served) > 0.9, where served are the requests the operations
 * counted (every request the authorizer let through reaches one). A refused request is never
 * cached (each refusal is an invocation: docs/keys-and-plans.md), while one allowed key's answer is
 * cached 30 s, but every one of its requests reaches an operation, so the share is by requests.
 * A new authorizer that refuses every key fires it 10 to 15 minutes after it takes all the
 * traffic (after prod's canary, at once in staging), at 4 requests a minute or more: the case the
 * release gate cannot see, since it compares the new version with the old one beside it
 * (infra/releases.ts). During a canary the old version still lets customers through, and the
 * alarm stays quiet. Its false alarm: 10 minutes with no customer served while someone sends 20
 * or more requests with bad keys in each 5 (docs/releases.md#no-silent-lock-out).
 */
export const LOCKOUT_ALARM = { refusedPercent: 90, minRefusals: 20, periodMinutes: 5, periods: 2 } as const;

export function addLockoutAlarm(scope: Construct, stage: Stage): Alarm {
  const { refusedPercent, minRefusals, periodMinutes, periods } = LOCKOUT_ALARM;
  const period = Duration.minutes(periodMinutes);
  const namespace = metricsNamespaceOf(stage);
  // Each operation's requests (its [operation] dimension set: every request it counted, keyed or not).
  const served = Object.fromEntries(
    OPERATION_IDS.map((operation, index) => [`served${index}`, new Metric({ namespace, metricName: REQUEST_METRICS.requests, dimensionsMap: { [METRIC_DIMENSIONS.operation]: operation }, statistic: 'Sum', period })]),
  );
  const servedSum = Object.keys(served).map((id) => `FILL(${id}, 0)`).join(' + ');
  return new Alarm(scope, 'AuthorizerLockoutAlarm', {
    alarmDescription:
      `The authorizer refused over ${refusedPercent} % of the requests that reached it (at least ${minRefusals} refusals) in each of ${periods} periods of ${periodMinutes} minutes in a row: ` +
      'customers may be locked out (a release of the authorizer, the key registry or its mirror), or only clients with bad keys were active. Compare the authorizer\'s refusals with the operations\' requests on the dashboard, and its log lines (reason of each refusal). docs/releases.md#no-silent-lock-out',
    metric: new MathExpression({
      // Shares compared without dividing; parenthesized throughout (CloudWatch documents no precedence of AND).
      expression: `IF((FILL(refused, 0) >= ${minRefusals}) AND (100 * FILL(refused, 0) > ${refusedPercent} * (FILL(refused, 0) + ${servedSum})), 1, 0)`,
      usingMetrics: {
        refused: new Metric({ namespace, metricName: AUTHORIZER_METRICS.refusals, dimensionsMap: { [AUTHORIZER_DIMENSIONS.function]: AUTHORIZER_FUNCTION }, statistic: 'Sum', period }),
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
