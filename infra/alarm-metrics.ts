import { Duration } from 'aws-cdk-lib';
import { Metric, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IRule } from 'aws-cdk-lib/aws-events';
import { AUTHORIZER_METRICS } from '../shared/auth/refusal-metrics';
import { metricsNamespaceOf } from '../shared/http/request-metrics';
import type { OperationId } from '../shared/http/routes';
import type { Stage } from './stages';

/** The period of the stage's alarms and gates. */
const FIVE_MINUTES = Duration.minutes(5);

/** One of an operation's request metrics (shared/http/request-metrics.ts), summed, of every version. */
export function operationMetric(
  stage: Stage,
  operation: OperationId,
  metricName: string,
  period: Duration = FIVE_MINUTES,
): Metric {
  return new Metric({
    namespace: metricsNamespaceOf(stage),
    metricName,
    dimensionsMap: { operation },
    statistic: 'Sum',
    period,
  });
}

/** The authorizer's refusals (shared/auth/refusal-metrics.ts), summed, under the dimensions given: the function alone, or with its version. */
export function authorizerRefusals(
  stage: Stage,
  dimensionsMap: Record<string, string>,
  period: Duration = FIVE_MINUTES,
): Metric {
  return new Metric({
    namespace: metricsNamespaceOf(stage),
    metricName: AUTHORIZER_METRICS.refusals,
    dimensionsMap,
    statistic: 'Sum',
    period,
  });
}

/** The invocations of an EventBridge rule's targets that failed, summed (published only for a rule whose target failed). */
export function ruleFailedInvocations(rule: IRule, period: Duration = FIVE_MINUTES): Metric {
  return new Metric({
    namespace: 'AWS/Events',
    metricName: 'FailedInvocations',
    dimensionsMap: { RuleName: rule.ruleName },
    statistic: 'Sum',
    period,
  });
}

/**
 * The sum of metrics of which each may have no data (a service that publishes only when something
 * happened), as metric math: each term filled with 0, or the sum would have no value unless all had one.
 */
export function filledSum(metrics: Record<string, IMetric>): string {
  return Object.keys(metrics)
    .map((id) => `FILL(${id}, 0)`)
    .join(' + ');
}
