import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { KEY_MIRROR_METRICS } from '../shared/auth/key-mirror';
import { tableDefinition } from '../shared/dynamodb/table-definition';
import { metricsNamespaceOf, REQUEST_METRICS } from '../shared/http/request-metrics';
import type { OperationId } from '../shared/http/routes';
import { P99_LATENCY_ALARM_MINUTES, P99_LATENCY_ALARM_MS, STAGE_ALARM_MINIMUMS } from './alarms';

export interface DashboardSources {
  readonly stage: string;
  readonly api: RestApi;
  readonly table: TableV2;
  readonly functions: Record<OperationId, IFunction>;
  readonly authorizer: IFunction;
  readonly keyMirrorApiId: string;
}

const PERIOD = Duration.minutes(1);

/**
 * One dashboard per stage, `petstore-<stage>`: requests and errors by operation, 429s by code and
 * plan, p50/p99 latency (API Gateway and functions), DynamoDB capacity and throttling, the
 * authorizer's errors and the key mirror's runs. The request metrics are the embedded ones of
 * every request line (shared/http/request-metrics.ts); the rest are AWS's own.
 */
export function addDashboard(scope: Construct, sources: DashboardSources): Dashboard {
  const namespace = metricsNamespaceOf(sources.stage);
  const operations = Object.keys(sources.functions) as OperationId[];
  const requestMetric = (metricName: string, operation: string, statistic = 'Sum') =>
    new Metric({
      namespace,
      metricName,
      dimensionsMap: { operation },
      statistic,
      period: PERIOD,
      label: `${operation}`,
    });
  // Every plan that has sent requests, without listing plans (an Enterprise plan may be any usage plan).
  const byPlan = (metricName: string, label: string) =>
    new MathExpression({
      expression: `SEARCH('{${namespace},operation,plan} MetricName="${metricName}"', 'Sum', ${PERIOD.toSeconds()})`,
      label: `${label} \${PROP('Dim.operation')} \${PROP('Dim.plan')}`,
      period: PERIOD,
    });

  // No fixed name: a dashboard's name is the account's across regions, and the same stage in a second
  // region would collide. CloudFormation names it; the stack's DashboardName output says which.
  const dashboard = new Dashboard(scope, 'Dashboard');
  dashboard.addWidgets(
    new TextWidget({
      markdown: `# Pet store (${sources.stage})\nRequests are the functions' own metrics (namespace \`${namespace}\`, one per request line); alarms notify the \`AlarmTopicArn\` topic (all but the release gates, which stop a release).`,
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    graph(
      'Requests by operation',
      operations.map((operation) => requestMetric(REQUEST_METRICS.requests, operation)),
    ),
    graph(
      '4XX by operation',
      operations.map((operation) => requestMetric(REQUEST_METRICS.status4xx, operation)),
    ),
    graph("5XX by operation (and the API's own)", [
      ...operations.map((operation) => requestMetric(REQUEST_METRICS.status5xx, operation)),
      sources.api.metricServerError({ period: PERIOD, statistic: 'Sum', label: 'API Gateway 5XX' }),
    ]),
  );
  dashboard.addWidgets(
    graph('429 rate_limited by operation and plan', [byPlan(REQUEST_METRICS.rateLimited, 'rate_limited')]),
    graph('429 key_suspended by operation and plan', [byPlan(REQUEST_METRICS.keySuspended, 'key_suspended')]),
    graph("The gateway's 4XX (401s, and 429s of addresses without a valid key)", [
      sources.api.metricClientError({ period: PERIOD, statistic: 'Sum', label: 'API Gateway 4XX' }),
    ]),
  );
  dashboard.addWidgets(
    graph(
      `API latency p50 / p99 (alarm: p99 > ${P99_LATENCY_ALARM_MS} ms in ${STAGE_ALARM_MINIMUMS.slowMinutes} of ${P99_LATENCY_ALARM_MINUTES} min)`,
      [
        sources.api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
        sources.api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
      ],
    ),
    graph(
      'Function latency p50 / p99 by operation',
      operations.flatMap((operation) => [
        new Metric({
          namespace,
          metricName: REQUEST_METRICS.latency,
          dimensionsMap: { operation },
          statistic: 'p50',
          period: PERIOD,
          label: `${operation} p50`,
        }),
        new Metric({
          namespace,
          metricName: REQUEST_METRICS.latency,
          dimensionsMap: { operation },
          statistic: 'p99',
          period: PERIOD,
          label: `${operation} p99`,
        }),
      ]),
    ),
  );
  const tableMetric = (metricName: string, dimensionsMap: Record<string, string> = {}) =>
    new Metric({
      namespace: 'AWS/DynamoDB',
      metricName,
      dimensionsMap: { TableName: sources.table.tableName, ...dimensionsMap },
      statistic: 'Sum',
      period: PERIOD,
    });
  /** The metrics of every index of the table. */
  const perIndex = (...metricNames: string[]) =>
    tableDefinition.globalSecondaryIndexes.flatMap(({ indexName }) =>
      metricNames.map((metricName) => tableMetric(metricName, { GlobalSecondaryIndexName: indexName })),
    );
  dashboard.addWidgets(
    graph('DynamoDB consumed capacity (units a minute)', [
      tableMetric('ConsumedReadCapacityUnits'),
      tableMetric('ConsumedWriteCapacityUnits'),
      ...perIndex('ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits'),
    ]),
    graph('DynamoDB throttled events', [
      tableMetric('ReadThrottleEvents'),
      tableMetric('WriteThrottleEvents'),
      ...perIndex('ReadThrottleEvents', 'WriteThrottleEvents'),
    ]),
  );
  dashboard.addWidgets(
    graph('Authorizer: errors (its "Unauthorized" among them) and invocations', [
      sources.authorizer.metricErrors({ period: PERIOD, statistic: 'Sum' }),
      sources.authorizer.metricInvocations({ period: PERIOD, statistic: 'Sum' }),
    ]),
    new SingleValueWidget({
      title: 'Key mirror: successful runs in the last 5 minutes (alarm below 1)',
      metrics: [
        new Metric({
          namespace: KEY_MIRROR_METRICS.namespace,
          metricName: KEY_MIRROR_METRICS.succeeded,
          dimensionsMap: { [KEY_MIRROR_METRICS.apiIdDimension]: sources.keyMirrorApiId },
          statistic: 'Sum',
          period: Duration.minutes(5),
        }),
      ],
      width: 12,
    }),
  );
  return dashboard;
}

function graph(title: string, metrics: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left: metrics, width: 8, height: 6 });
}
