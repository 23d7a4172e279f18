/**
 * The release prober's counts as metrics, in one log line per function probed and run (CloudWatch's
 * embedded metric format): `CanaryProbes`, the requests sent to the function's new version, and
 * `FailedCanaryProbes`, those that failed and that its own metrics do not count (all but its 5XX
 * answers: ./canary-probes.ts), by function and version. A release's gate adds them to the version's
 * invocations and failures (infra/releases.ts).
 */
import { config } from '../config';
import { metricMembers } from '../embedded-metrics';

export const CANARY_PROBE_METRICS = { sent: 'CanaryProbes', failed: 'FailedCanaryProbes' } as const;

/** The dimensions: the function's name in the table of functions, and the version probed. */
export const CANARY_PROBE_DIMENSIONS = { function: 'function', version: 'version' } as const;

const LINE = metricMembers({
  namespace: config.metricsNamespace,
  dimensions: [[CANARY_PROBE_DIMENSIONS.function, CANARY_PROBE_DIMENSIONS.version]],
  metrics: { [CANARY_PROBE_METRICS.sent]: 'Count', [CANARY_PROBE_METRICS.failed]: 'Count' },
});

/** The metric members of one function's line (its entry holds the `function` and `version` fields). */
export function canaryProbeMetricMembers(sent: number, failed: number, nowMs: number): string {
  return LINE({ [CANARY_PROBE_METRICS.sent]: sent, [CANARY_PROBE_METRICS.failed]: failed }, nowMs);
}
