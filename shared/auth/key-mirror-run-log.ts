import { metricMembers } from '../embedded-metrics';
import { writeLog } from '../log';
import { KEY_MIRROR_METRICS, type MirrorReport } from './key-mirror';

const { apiIdDimension, succeeded, keys, calls } = KEY_MIRROR_METRICS;
const runMetrics = metricMembers({
  namespace: KEY_MIRROR_METRICS.namespace,
  dimensions: [[apiIdDimension]],
  metrics: { [succeeded]: 'Count', [keys]: 'Count', [calls]: 'Count' },
});

/**
 * The one log line of a key mirror run that did its part, which is also its metrics (embedded
 * metric format): succeeded (1, or 0 when the report names a problem), the keys mirrored and the
 * management calls made, under the REST API's id. Below LOG_LEVEL the line keeps its metrics, so
 * the stack's alarm on successes never goes blind because the log was turned down.
 */
export function logMirrorRun(report: MirrorReport, apiId: string, startedAt: number): void {
  // A plan it could not use is for the operator to fix: the run did its part, but is no success.
  const success = report.problems.length === 0 ? 1 : 0;
  writeLog(
    {
      level: success ? 'info' : 'warn',
      msg: 'key mirror',
      ...report,
      durationMs: Date.now() - startedAt,
      [apiIdDimension]: apiId,
    },
    runMetrics({ [succeeded]: success, [keys]: report.keys, [calls]: report.managementCalls }, startedAt),
    [apiIdDimension],
  );
}
