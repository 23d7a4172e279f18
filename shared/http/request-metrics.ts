/**
 * Per-request metrics in CloudWatch's embedded metric format: the request's own log line carries
 * them (an `_aws` block naming which of its fields are metrics, under which dimensions), so
 * CloudWatch makes metrics of it with no API call and no extra line. Dimensions are the operation
 * and the plan, never a key id or an address (one metric per key would be unbounded); and for the
 * 5XX answers alone also the function's version, which a release's gate watches (infra/releases.ts;
 * written on 5XX lines only: docs/releases.md#what-the-gates-cost).
 *
 * The release check's requests (its principal's, in the releases' pet space) are no customer's:
 * they stay out of these, and a 5XX among them counts by operation and version alone, what the
 * release's gate reads (docs/release-check.md).
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

/**
 * A 5XX answer's line also counts it by operation and version: what a release's gate counts of
 * the new version alone (missing data is no failure there). Only on those lines, so that the
 * series exists, and costs, only for a version that answered 5XX, and no other line grows.
 */
const BY_VERSION = {
  fixed: { [METRIC_DIMENSIONS.version]: config.functionVersion },
  narrower: [
    { dimensions: [[METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.version]], metrics: [REQUEST_METRICS.status5xx] },
  ],
};
const BY_OPERATION_AND_PLAN = {
  namespace: config.metricsNamespace,
  dimensions: [[METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.plan], [METRIC_DIMENSIONS.operation]],
  metrics: UNITS,
};
const BY_OPERATION = {
  namespace: config.metricsNamespace,
  dimensions: [[METRIC_DIMENSIONS.operation]],
  metrics: UNITS,
};

/** The release check's 5XX: by operation and version, nothing else. */
const FAILED_RELEASE_REQUEST = metricMembers({
  namespace: config.metricsNamespace,
  dimensions: [[METRIC_DIMENSIONS.operation, METRIC_DIMENSIONS.version]],
  metrics: { [REQUEST_METRICS.status5xx]: 'Count' },
  fixed: BY_VERSION.fixed,
});

/** Who the request was counted for: a customer's key (by plan), no key, or the release check (./request-metrics.ts, above). */
export type MeteredCaller = 'customer' | 'anonymous' | 'release';

/** What a request's metrics are made of. */
export interface MeteredRequest {
  /** The answer's HTTP status. */
  readonly status: number;
  /** The answer's error code, if any (`rate_limited` and `key_suspended` have metrics of their own). */
  readonly code: string | undefined;
  readonly latencyMs: number;
  readonly caller: MeteredCaller;
}

/** A request's line, with the plan, or without one (no key); a 5XX answer's also by version. */
const WITH_PLAN = metricMembers(BY_OPERATION_AND_PLAN);
const WITHOUT_PLAN = metricMembers(BY_OPERATION);
const FAILED_WITH_PLAN = metricMembers({ ...BY_OPERATION_AND_PLAN, ...BY_VERSION });
const FAILED_WITHOUT_PLAN = metricMembers({ ...BY_OPERATION, ...BY_VERSION });

/**
 * The metric fields and the `_aws` block of one request, as JSON members to append to its log line
 * (which holds `operation` and, when known, `plan`); undefined for a release check's request that
 * did not fail (no metric at all).
 */
export function requestMetricMembers(
  { status, code, latencyMs, caller }: MeteredRequest,
  nowMs: number,
): string | undefined {
  const statusClass = Math.floor(status / 100);
  if (caller === 'release')
    return statusClass === 5 ? FAILED_RELEASE_REQUEST({ [REQUEST_METRICS.status5xx]: 1 }, nowMs) : undefined;
  const withPlan = caller === 'customer';
  const write =
    statusClass === 5 ? (withPlan ? FAILED_WITH_PLAN : FAILED_WITHOUT_PLAN) : withPlan ? WITH_PLAN : WITHOUT_PLAN;
  return write(
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
