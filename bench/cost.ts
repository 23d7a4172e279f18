/**
 * `npm run cost`: what a million requests cost, per operation and for a mix, computed from the
 * bench's measured figures (bench/results.json: DynamoDB capacity per request, warm duration) and
 * the price table (bench/prices.json, with its date and region), and written into
 * docs/scale-and-cost.md between its cost markers. test/docs/cost.test.ts recomputes it.
 */
import { CANARY_PROBE_METRICS } from '../shared/release-check/canary-probe-metrics';
import { WALK_FUNCTIONS } from '../shared/release-check/success-walk';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FUNCTION_SETTINGS } from '../infra/functions';
import { WAF_RULES } from '../infra/waf';
import { OPERATION_IDS, type OperationId } from '../functions/table';
import { PLAN_NAMES } from '../shared/limits/plans';
import { requestMetricMembers, REQUEST_METRICS } from '../shared/http/request-metrics';
import { setLogSink, writeLog } from '../shared/log';
import { ALL_CASES, mainCaseOf } from './cases';
import { writeBetweenMarkers } from './generated-section';

export interface Prices {
  readonly region: string;
  readonly date: string;
  readonly apiGatewayRestPerMillion: number;
  readonly lambdaArm64PerGbSecond: number;
  readonly lambdaPerMillionRequests: number;
  readonly dynamoDbOnDemandPerMillionReadUnits: number;
  readonly dynamoDbOnDemandPerMillionWriteUnits: number;
  readonly wafPerMillionRequests: number;
  readonly wafPerWebAclMonth: number;
  readonly wafPerRuleMonth: number;
  readonly cloudWatchLogsIngestionPerGb: number;
  readonly cloudWatchCustomMetricPerMonth: number;
  readonly xrayPerMillionTracesRecorded: number;
}

interface Measured {
  readonly endToEndMs: Record<string, { ours: { p50: number } }>;
  readonly dynamoDb: Record<string, { ours: { capacityUnits: number; readUnits: number } }>;
}

/** What the traffic is assumed to be, beyond what the bench measures. */
export const ASSUMPTIONS = {
  /** The authorizer's answer is cached 30 s per key and address: a busy client misses rarely. */
  authorizerMissShare: 0.05,
  /** Bytes per line besides the request line (measured below): API Gateway's access log line, the authorizer's. */
  accessLogLineBytes: 300,
  /** Lambda's own platform lines per invocation (start, end and report, as JSON, with the trace id). */
  platformLinesBytes: 650,
  authorizerLineBytes: 230,
  /** X-Ray's default sampling: the first request each second, then 5 %. */
  tracedShare: 0.05,
  /** The operations' cases by their share of the requests (bench/cases.ts: mostly listing, some creates, half of them with an Idempotency-Key, few getPet, deprecated). */
  mix: Object.fromEntries(
    ALL_CASES.flatMap(({ dynamoDb }) =>
      dynamoDb?.costShare === undefined ? [] : [[dynamoDb.label, dynamoDb.costShare]],
    ),
  ) as Record<string, number>,
};

/** A request line with its metrics, as the service writes it (measured, not assumed), plus CloudWatch's 26 bytes an event. */
export function requestLineBytes(): number {
  let line = '';
  const previous = setLogSink((written) => (line = written));
  try {
    writeLog(
      {
        level: 'info',
        msg: 'request',
        requestId: 'c0a8b8f2-6d1e-4b7a-9f1e-2a3b4c5d6e7f',
        operation: 'listPets',
        route: 'GET /v1/pets',
        status: 200,
        durationMs: 12.34,
        keyId: '0123456789abcdef',
        plan: 'business',
      },
      requestMetricMembers({ status: 200, code: undefined, latencyMs: 12.34, caller: 'customer' }, 1_795_428_060_000),
    );
  } finally {
    setLogSink(previous);
  }
  return Buffer.byteLength(line) + 1 + 26;
}

/** A row per operation's case measured against DynamoDB (bench/cases.ts). */
const CASES: { label: string; fn: OperationId }[] = ALL_CASES.flatMap(({ fn, dynamoDb }) =>
  fn === 'authorizer' || dynamoDb === undefined ? [] : [{ label: dynamoDb.label, fn }],
);

/** The authorizer's figures: its main case (a known key). */
function authorizerLabel(): string {
  const label = mainCaseOf('authorizer').dynamoDb?.label;
  if (label === undefined)
    throw new Error("bench/cases.ts: the authorizer's main case is not measured against DynamoDB");
  return label;
}

interface Breakdown {
  apiGateway: number;
  lambda: number;
  dynamoDb: number;
  waf: number;
  logs: number;
  xray: number;
}

/** A function's measured p50, end to end; a function the results lack is a bench defect. */
function p50Of(measured: Measured, fn: string): number {
  const figure = measured.endToEndMs[fn];
  if (figure === undefined) throw new Error(`the bench results have no end-to-end figure for ${fn}`);
  return figure.ours.p50;
}

const total = (b: Breakdown): number => b.apiGateway + b.lambda + b.dynamoDb + b.waf + b.logs + b.xray;

/** Dollars per million requests of one case. */
export function costOf(label: string, fn: string, measured: Measured, prices: Prices): Breakdown {
  const memoryGb = FUNCTION_SETTINGS.memorySize / 1024;
  const billedSeconds = (ms: number) => Math.ceil(ms) / 1000; // billed by the started millisecond
  const lambdaOf = (ms: number) =>
    prices.lambdaPerMillionRequests + billedSeconds(ms) * memoryGb * prices.lambdaArm64PerGbSecond * 1e6;
  const measuredOf = (caseLabel: string) => {
    const found = measured.dynamoDb[caseLabel];
    // A case added to bench/cases.ts is priced from a measurement: the committed one predates it.
    if (found === undefined)
      throw new Error(
        `bench/results.json has no measurement of "${caseLabel}": run npm run bench (it measures every case of bench/cases.ts and rewrites the results and the cost table), or npm run bench -- --operation <its function> --only requests --only e2e (merged into the results)`,
      );
    return found.ours;
  };
  const { capacityUnits, readUnits } = measuredOf(label);
  const authorizer = measuredOf(authorizerLabel());
  const writeUnits = capacityUnits - readUnits;
  const share = ASSUMPTIONS.authorizerMissShare;
  const gb = (bytes: number) => (bytes * 1e6) / 1024 ** 3;
  return {
    apiGateway: prices.apiGatewayRestPerMillion,
    lambda: lambdaOf(p50Of(measured, fn)) + share * lambdaOf(p50Of(measured, 'authorizer')),
    dynamoDb:
      readUnits * prices.dynamoDbOnDemandPerMillionReadUnits +
      writeUnits * prices.dynamoDbOnDemandPerMillionWriteUnits +
      share * authorizer.readUnits * prices.dynamoDbOnDemandPerMillionReadUnits,
    waf: prices.wafPerMillionRequests,
    logs:
      gb(
        requestLineBytes() +
          ASSUMPTIONS.accessLogLineBytes +
          ASSUMPTIONS.platformLinesBytes +
          share * (ASSUMPTIONS.authorizerLineBytes + ASSUMPTIONS.platformLinesBytes),
      ) * prices.cloudWatchLogsIngestionPerGb,
    xray: ASSUMPTIONS.tracedShare * prices.xrayPerMillionTracesRecorded,
  };
}

const money = (dollars: number): string => `$${dollars.toFixed(2)}`;

export function costTable(measured: Measured, prices: Prices): string {
  const rows = CASES.map(({ label, fn }) => [label, costOf(label, fn, measured, prices)] as const);
  const mix = Object.entries(ASSUMPTIONS.mix).reduce<Breakdown>(
    (sum, [label, share]) => {
      const row = CASES.find((c) => c.label === label);
      if (row === undefined)
        throw new Error(
          `bench/cases.ts: "${label}" has a cost share but is no operation's case measured against DynamoDB`,
        );
      const cost = costOf(label, row.fn, measured, prices);
      for (const key of Object.keys(sum) as (keyof Breakdown)[]) sum[key] += share * cost[key];
      return sum;
    },
    { apiGateway: 0, lambda: 0, dynamoDb: 0, waf: 0, logs: 0, xray: 0 },
  );
  const gatewayOnly = prices.apiGatewayRestPerMillion + prices.wafPerMillionRequests;
  const metricSeries = Object.keys(REQUEST_METRICS).length * OPERATION_IDS.length * (1 + PLAN_NAMES.length);
  // For the release gates (infra/releases.ts): each operation's 5XX answers by version, the authorizer's refusals in all and by version.
  const versionSeries = OPERATION_IDS.length + 2;
  const lines = [
    `Prices: ${prices.region}, as of ${prices.date} (\`bench/prices.json\`); measured figures: \`bench/results.json\` (warm duration p50 against DynamoDB Local, consumed capacity as DynamoDB Local reports it). Dollars per million requests:`,
    '',
    '| requests | API Gateway | Lambda | DynamoDB | WAF | logs | X-Ray | total |',
    '|---|---|---|---|---|---|---|---|',
    ...[
      ...rows,
      [
        `mix (${Object.entries(ASSUMPTIONS.mix)
          .map(([label, share]) => `${Math.round(share * 100)} % ${label}`)
          .join(', ')})`,
        mix,
      ] as const,
    ].map(
      ([label, b]) =>
        `| ${label} | ${money(b.apiGateway)} | ${money(b.lambda)} | ${money(b.dynamoDb)} | ${money(b.waf)} | ${money(b.logs)} | ${money(b.xray)} | **${money(total(b))}** |`,
    ),
    `| the same traffic answered by API Gateway usage plans alone, no function | ${money(prices.apiGatewayRestPerMillion)} | – | – | ${money(prices.wafPerMillionRequests)} | – | – | **${money(gatewayOnly)}** |`,
    '',
    `The limiter's exactness (rate-limit headers, the exact per-key counts, suspensions) and everything a function does cost ${money(total(mix) - gatewayOnly)} a million requests over the gateway alone in this mix, ${(total(mix) / gatewayOnly).toFixed(1)}× its price.`,
    `Fixed a month per stage, whatever the traffic: the web ACL ${money(prices.wafPerWebAclMonth + Object.keys(WAF_RULES).length * prices.wafPerRuleMonth)} (${Object.keys(WAF_RULES).length} rules), the request metrics ${money((metricSeries + versionSeries) * prices.cloudWatchCustomMetricPerMonth)} (${metricSeries + versionSeries} series at most: ${Object.keys(REQUEST_METRICS).length} metrics × ${OPERATION_IDS.length} operations × (1 + ${PLAN_NAMES.length} plans; a custom Enterprise usage plan reports as \`enterprise\`), and ${versionSeries} by the version that runs, which the release gates watch; a release adds ${versionSeries - 1} more for its hour, and the release prober's counts ${Object.keys(CANARY_PROBE_METRICS).length * WALK_FUNCTIONS.length} (${Object.keys(CANARY_PROBE_METRICS).length} by each of the ${WALK_FUNCTIONS.length} functions it probes and the version: docs/releases.md#what-the-gates-cost)), the alarms and the dashboard (a few dollars).`,
    `Assumed: the authorizer runs for ${ASSUMPTIONS.authorizerMissShare * 100} % of requests (its 30 s cache), X-Ray records ${ASSUMPTIONS.tracedShare * 100} % (its default sampling), log lines of ${requestLineBytes()} bytes (the request line with its metrics, measured) + ${ASSUMPTIONS.accessLogLineBytes} (API Gateway's access log) + ${ASSUMPTIONS.platformLinesBytes} (Lambda's start, end and report lines) a request; Lambda's duration is the warm p50 against DynamoDB Local, longer than against DynamoDB in the region, so the Lambda column is an upper figure.`,
  ];
  return `${lines.join('\n')}\n`;
}

export const COST_START = '<!-- cost: generated by `npm run cost`; do not edit -->';
export const COST_END = '<!-- cost end -->';

export function readInputs(root: string): { measured: Measured; prices: Prices } {
  return {
    measured: JSON.parse(readFileSync(`${root}/bench/results.json`, 'utf8')) as Measured,
    prices: JSON.parse(readFileSync(`${root}/bench/prices.json`, 'utf8')) as Prices,
  };
}

/** Computes the table from the committed inputs and writes it into docs/scale-and-cost.md; returns it. */
export function writeCostIntoDocs(root: string): string {
  const { measured, prices } = readInputs(root);
  const table = costTable(measured, prices);
  writeBetweenMarkers(`${root}/docs/scale-and-cost.md`, COST_START, COST_END, table);
  return table;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(writeCostIntoDocs(fileURLToPath(new URL('..', import.meta.url))));
