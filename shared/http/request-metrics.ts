/**
 * Per-request metrics in CloudWatch's embedded metric format: the request's own log line carries
 * them (an `_aws` block naming which of its fields are metrics, under which dimensions), so
 * CloudWatch makes metrics of it with no API call and no extra line. Dimensions are the operation
 * and the plan, never a key id or an address (one metric per key would be unbounded); and for the
 * 5XX answers alone also the function's version, which a release's gate watches (infra/releases.ts:
 * one more series per operation and version, docs/releases.md#what-the-gates-cost).
 *
 *   Requests       1 per request              Status2xx/4xx/5xx   1 for its status class, else 0
 *   Latency        the request's duration     RateLimited         1 for a 429 rate_limited
 *                  in the function, ms        KeySuspended        1 for a 429 key_suspended
 */
import { config } from '../config';
import { metricMembers, type MetricUnit } from '../embedded-metrics';

/** Per stage (the CDK stack sets METRICS_NAMESPACE), so staging's metrics never mix with prod's. */
export const metricsNamespaceOf = (stage: string): string => `PetStore/${stage}`;

export const REQUEST_METRICS = {
  requests: 'Requests',
  latency: 'Latency',
  status2xx: 'Status2xx',
  status4xx: 'Status4xx',
  status5xx: 'Status5xx',
  rateLimited: 'RateLimited',
  keySuspended: 'KeySuspended',
} as const;

/** The log line's fields that are the dimensions (the request line names them so already; the version is the metrics' own member). */
export const METRIC_DIMENSIONS = { operation: 'operation', plan: 'plan', version: 'version' } as const;

/** The entry's fields a metric line refers to, for the line that keeps its metrics alone (shared/log.ts); the version is written with the metrics. */
export const METRIC_DIMENSION_FIELDS: readonly string[] = [METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.plan];

type RequestMetric = (typeof REQUEST_METRICS)[keyof typeof REQUEST_METRICS];

/** Each metric's unit, in REQUEST_METRICS' order: the latency in milliseconds, the rest counts. */
const UNITS = Object.fromEntries(
  Object.values(REQUEST_METRICS).map((name) => [name, name === REQUEST_METRICS.latency ? 'Milliseconds' : 'Count']),
) as Record<RequestMetric, MetricUnit>;

/** The 5XX answers by operation and version: what a release's gate counts of the new version alone. */
const BY_VERSION = {
  fixed: { [METRIC_DIMENSIONS.version]: config.functionVersion },
  narrower: [{ dimensions: [[METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.version]], metrics: [REQUEST_METRICS.status5xx] }],
};

/** A request's line, with the plan, or without one (no key). */
const WITH_PLAN = metricMembers({ namespace: config.metricsNamespace, dimensions: [[METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.plan], [METRIC_DIMENSIONS.operation]], metrics: UNITS, ...BY_VERSION });
const WITHOUT_PLAN = metricMembers({ namespace: config.metricsNamespace, dimensions: [[METRIC_DIMENSIONS.operation]], metrics: UNITS, ...BY_VERSION });

/**
 * The metric fields and the `_aws` block of one request, as JSON members to append to its log line
 * (which holds `operation` and, when known, `plan`).
 */
export function requestMetricMembers(status: number, code: string | undefined, latencyMs: number, withPlan: boolean, nowMs: number): string {
  const statusClass = Math.floor(status / 100);
  return (withPlan ? WITH_PLAN : WITHOUT_PLAN)(
    {
      [REQUEST_METRICS.requests]: 1,
      [REQUEST_METRICS.latency]: latencyMs,
      [REQUEST_METRICS.status2xx]: statusClass === 2 ? 1 : 0,
      [REQUEST_METRICS.status4xx]: statusClass === 4 ? 1 : 0,
      [REQUEST_METRICS.status5xx]: statusClass === 5 ? 1 : 0,
      [REQUEST_METRICS.rateLimited]: code === 'rate_limited' ? 1 : 0,
      [REQUEST_METRICS.keySuspended]: code === 'key_suspended' ? 1 : 0,
    },
    nowMs,
  );
}
