/**
 * CloudWatch's embedded metric format (EMF): a log line that carries its own metrics, which
 * CloudWatch Logs turns into metrics with no API call and no extra line. The line holds each
 * metric's value as a member, and an `_aws` block saying which members are metrics, in which
 * namespace, under which dimensions (members of the line too). The one writer of every metric line
 * of the service: the request metrics (shared/http/request-metrics.ts) and the key mirror's run
 * (functions/keyMirror/handler.ts).
 */
export type MetricUnit = 'Count' | 'Milliseconds';

export interface MetricLine<Name extends string> {
  readonly namespace: string;
  /** Each set names the line's members that make up one dimension combination. */
  readonly dimensions: readonly (readonly string[])[];
  /** The metrics, in the order the line writes them. */
  readonly metrics: Readonly<Record<Name, MetricUnit>>;
  /**
   * Members the same on every line of the kind (the function's version), written once into the
   * line's text: dimensions of `narrower` that the line's own fields do not hold.
   */
  readonly fixed?: Readonly<Record<string, string>>;
  /**
   * Further dimension sets for some of the metrics only: each adds a series per metric and value,
   * so they are kept to what an alarm needs (a version's 5XX answers: docs/releases.md).
   */
  readonly narrower?: readonly {
    readonly dimensions: readonly (readonly string[])[];
    readonly metrics: readonly NoInfer<Name>[];
  }[];
}

/** The metric members of one line: the values, then the `_aws` block, as JSON members to append to the line's other members. */
export type MetricMembers<Name extends string> = (
  values: Readonly<Record<Name, number>>,
  timestampMs: number,
) => string;

/**
 * The writer of lines of one kind. The `_aws` block but its timestamp is the same on every line of
 * a kind: written here once, not per line (the request metrics write one per request).
 */
export function metricMembers<Name extends string>(line: MetricLine<Name>): MetricMembers<Name> {
  const names = Object.keys(line.metrics) as Name[];
  const declared = (metrics: readonly Name[]) => metrics.map((name) => ({ Name: name, Unit: line.metrics[name] }));
  const directive = JSON.stringify([
    { Namespace: line.namespace, Dimensions: line.dimensions, Metrics: declared(names) },
    ...(line.narrower ?? []).map(({ dimensions, metrics }) => ({
      Namespace: line.namespace,
      Dimensions: dimensions,
      Metrics: declared(metrics),
    })),
  ]);
  const labels = names.map((name) => `${JSON.stringify(name)}:`);
  const fixed = Object.entries(line.fixed ?? {})
    .map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)},`)
    .join('');
  return (values, timestampMs) => {
    let members = fixed;
    for (let i = 0; i < names.length; i += 1) members += `${labels[i]}${values[names[i] as Name]},`;
    return `${members}"_aws":{"Timestamp":${timestampMs},"CloudWatchMetrics":${directive}}`;
  };
}
