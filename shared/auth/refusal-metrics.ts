/**
 * The authorizer's refusals as a metric, in the refusal's own log line (CloudWatch's embedded
 * metric format): `Refusals`, 1 on each line of a request it refused for want of a valid key (401)
 * or over the address's allowance (429), under the function alone and under the function and the
 * version that ran. A release's gate compares the new version's share of refusals with the old
 * one's (infra/releases.ts); a datastore failure (503) is not a refusal: the stage's 5XX alarm sees it.
 */
import { config } from '../config';
import { metricMembers } from '../embedded-metrics';

export const AUTHORIZER_METRICS = { refusals: 'Refusals' } as const;

/** The dimensions, members of every refusal line: the function's name, and its version. */
export const AUTHORIZER_DIMENSIONS = { function: 'function', version: 'version' } as const;

/** The value of the `function` dimension. */
export const AUTHORIZER_FUNCTION = 'authorizer';

const REFUSAL = metricMembers({
  namespace: config.metricsNamespace,
  dimensions: [[AUTHORIZER_DIMENSIONS.function], [AUTHORIZER_DIMENSIONS.function, AUTHORIZER_DIMENSIONS.version]],
  metrics: { [AUTHORIZER_METRICS.refusals]: 'Count' },
  fixed: {
    [AUTHORIZER_DIMENSIONS.function]: AUTHORIZER_FUNCTION,
    [AUTHORIZER_DIMENSIONS.version]: config.functionVersion,
  },
});

/** The metric members of one refusal's line. */
export function refusalMetricMembers(nowMs: number): string {
  return REFUSAL({ [AUTHORIZER_METRICS.refusals]: 1 }, nowMs);
}
