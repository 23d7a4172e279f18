import { OPERATIONS, type FunctionName } from '../functions/table';
import { metricsNamespaceOf } from '../shared/http/request-metrics';

/** The deployed stages: one stack each, `PetStore-<stage>`, side by side in one account and region. */
export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * The stages whose alarms must reach someone: `cdk synth` and `cdk deploy` of such a stage fail
 * unless it is given an e-mail address or an existing SNS topic (infra/alarm-destination.ts).
 */
export const ALARM_DESTINATION_REQUIRED: Readonly<Record<Stage, boolean>> = { staging: false, prod: true };

/**
 * What a function's environment holds of its stage, beside its declaration's variables
 * (infra/declared-rights.ts): the metrics namespace of the operations, the authorizer (its refusals
 * are a metric: shared/auth/refusal-metrics.ts) and the release prober (its counts are:
 * shared/release-check/canary-probe-metrics.ts). The stack sets it, and the
 * release drill (local/release-environment.ts) the same.
 */
export function stageEnvironmentOf(name: FunctionName, stage: Stage): Record<string, string> {
  if (name in OPERATIONS || name === 'authorizer' || name === 'releaseProber')
    return { METRICS_NAMESPACE: metricsNamespaceOf(stage) };
  return {};
}
