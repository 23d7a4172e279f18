import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logMirrorRun } from '../../../shared/auth/key-mirror-run-log';
import type { MirrorReport } from '../../../shared/auth/key-mirror';
import { metricMembers } from '../../../shared/embedded-metrics';
import { requestMetricMembers } from '../../../shared/http/request-metrics';
import { loggedError, setLogLevel, setLogSink } from '../../../shared/log';

/**
 * The one writer of metric lines (CloudWatch's embedded metric format), and the two kinds of line
 * it writes: a request's and a key mirror run's. (The request line, whole, as npm start logs it:
 * test/http/local-logs.test.ts.)
 */
describe('metricMembers', () => {
  it("writes each metric's value in the declared order, then the _aws block that declares them", () => {
    const write = metricMembers({
      namespace: 'NS',
      dimensions: [['a', 'b'], ['a']],
      metrics: { Second: 'Milliseconds', First: 'Count' },
    });
    expect(JSON.parse(`{"a":"x","b":"y",${write({ First: 1, Second: 2.5 }, 1_000)}}`)).toEqual({
      a: 'x',
      b: 'y',
      Second: 2.5,
      First: 1,
      _aws: {
        Timestamp: 1_000,
        CloudWatchMetrics: [
          {
            Namespace: 'NS',
            Dimensions: [['a', 'b'], ['a']],
            Metrics: [
              { Name: 'Second', Unit: 'Milliseconds' },
              { Name: 'First', Unit: 'Count' },
            ],
          },
        ],
      },
    });
    expect(write({ First: 1, Second: 2.5 }, 1_000).startsWith('"Second":2.5,"First":1,"_aws":')).toBe(true);
  });

  it("a narrower set: some metrics only, by dimensions that may be the line's fixed members", () => {
    const write = metricMembers({
      namespace: 'NS',
      dimensions: [['a']],
      metrics: { Second: 'Count', First: 'Count' },
      fixed: { v: '7' },
      narrower: [{ dimensions: [['a', 'v']], metrics: ['First'] }],
    });
    expect(JSON.parse(`{"a":"x",${write({ First: 1, Second: 0 }, 5)}}`)).toEqual({
      a: 'x',
      v: '7',
      Second: 0,
      First: 1,
      _aws: {
        Timestamp: 5,
        CloudWatchMetrics: [
          {
            Namespace: 'NS',
            Dimensions: [['a']],
            Metrics: [
              { Name: 'Second', Unit: 'Count' },
              { Name: 'First', Unit: 'Count' },
            ],
          },
          { Namespace: 'NS', Dimensions: [['a', 'v']], Metrics: [{ Name: 'First', Unit: 'Count' }] },
        ],
      },
    });
  });

  it("a request's members: one request, its latency, its status class, and whether it was rate limited or suspended", () => {
    expect(
      JSON.parse(
        `{${requestMetricMembers({ status: 429, code: 'key_suspended', latencyMs: 3.25, caller: 'anonymous' }, 7)}}`,
      ),
    ).toEqual({
      Requests: 1,
      Latency: 3.25,
      Status2xx: 0,
      Status4xx: 1,
      Status5xx: 0,
      RateLimited: 0,
      KeySuspended: 1,
      _aws: {
        Timestamp: 7,
        CloudWatchMetrics: [
          {
            Namespace: 'PetStore/local',
            Dimensions: [['operation']],
            Metrics: ['Requests', 'Latency', 'Status2xx', 'Status4xx', 'Status5xx', 'RateLimited', 'KeySuspended'].map(
              (name) => ({ Name: name, Unit: name === 'Latency' ? 'Milliseconds' : 'Count' }),
            ),
          },
        ],
      },
    });
  });
});

describe("a 5XX answer's members", () => {
  it("also count it by operation and the version that ran, which a release's gate judges the new version by", () => {
    const line = JSON.parse(
      `{${requestMetricMembers({ status: 503, code: 'service_unavailable', latencyMs: 1, caller: 'customer' }, 7)}}`,
    );
    expect(line).toMatchObject({ version: '$LATEST', Status5xx: 1, Status2xx: 0 });
    expect(line._aws.CloudWatchMetrics).toHaveLength(2);
    expect(line._aws.CloudWatchMetrics[0].Dimensions).toEqual([['operation', 'plan'], ['operation']]);
    // The release gate's (infra/releases.ts): only 5XX lines carry it, so no other line grows.
    expect(line._aws.CloudWatchMetrics[1]).toEqual({
      Namespace: 'PetStore/local',
      Dimensions: [['operation', 'version']],
      Metrics: [{ Name: 'Status5xx', Unit: 'Count' }],
    });
    for (const status of [200, 201, 400, 404, 429])
      expect(requestMetricMembers({ status, code: undefined, latencyMs: 1, caller: 'customer' }, 7)).not.toContain(
        'version',
      );
    expect(
      JSON.parse(
        `{${requestMetricMembers({ status: 500, code: 'internal_error', latencyMs: 1, caller: 'anonymous' }, 7)}}`,
      )._aws.CloudWatchMetrics[1].Dimensions,
    ).toEqual([['operation', 'version']]);
  });
});

describe("the release check's requests", () => {
  it("stay out of the customers' metrics: no metric when they succeed or are refused", () => {
    for (const status of [200, 201, 400, 404, 410, 429])
      expect(requestMetricMembers({ status, code: undefined, latencyMs: 1, caller: 'release' }, 7)).toBeUndefined();
  });

  it("count a 5XX by operation and version alone, what the release's gate reads", () => {
    const line = JSON.parse(
      `{${requestMetricMembers({ status: 500, code: 'internal_error', latencyMs: 1, caller: 'release' }, 7)}}`,
    );
    expect(line).toEqual({
      version: '$LATEST',
      Status5xx: 1,
      _aws: {
        Timestamp: 7,
        CloudWatchMetrics: [
          {
            Namespace: 'PetStore/local',
            Dimensions: [['operation', 'version']],
            Metrics: [{ Name: 'Status5xx', Unit: 'Count' }],
          },
        ],
      },
    });
  });
});

describe("a key mirror run's line", () => {
  let lines: string[] = [];
  const restore = { level: () => {} };
  beforeAll(() => {
    const previous = setLogSink((line) => lines.push(line));
    return () => setLogSink(previous);
  });
  afterEach(() => {
    lines = [];
    restore.level();
  });
  const report = (problems: string[]): MirrorReport => ({
    usagePlans: 2,
    keys: 12,
    written: 1,
    removed: 0,
    managementCalls: 3,
    problems,
  });

  it("is the run's report and its metrics under the API's id: succeeded 1, the keys, the management calls", () => {
    logMirrorRun(report([]), 'api123', 5_000);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'key mirror',
      keys: 12,
      ApiId: 'api123',
      KeyMirrorSucceeded: 1,
      MirroredKeys: 12,
      ManagementCalls: 3,
    });
    expect(line._aws).toEqual({
      Timestamp: 5_000,
      CloudWatchMetrics: [
        {
          Namespace: 'PetStore',
          Dimensions: [['ApiId']],
          Metrics: ['KeyMirrorSucceeded', 'MirroredKeys', 'ManagementCalls'].map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    });
  });

  it('a run that found a problem is a warning that did not succeed', () => {
    logMirrorRun(report(['plan p-x: no petstore:plan tag']), 'api123', 5_000);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', KeyMirrorSucceeded: 0 });
  });

  it("below LOG_LEVEL keeps its metrics and the API's id, so the alarm on successes never goes blind", () => {
    restore.level = setLogLevel('error');
    logMirrorRun(report([]), 'api123', 5_000);
    const line = JSON.parse(lines[0]!);
    expect(Object.keys(line).sort()).toEqual([
      'ApiId',
      'KeyMirrorSucceeded',
      'ManagementCalls',
      'MirroredKeys',
      '_aws',
    ]);
    expect(line).toMatchObject({ ApiId: 'api123', KeyMirrorSucceeded: 1 });
  });
});

describe('loggedError', () => {
  it("an error: its name, message and stack, and its cause's name and message", () => {
    const error = new TypeError('broken', { cause: new RangeError('underneath') });
    expect(loggedError(error)).toEqual({
      name: 'TypeError',
      message: 'broken',
      stack: error.stack,
      cause: { name: 'RangeError', message: 'underneath' },
    });
    expect(loggedError(new Error('alone'))).not.toHaveProperty('cause');
    expect(loggedError(new Error('not an error below', { cause: 'text' }))).not.toHaveProperty('cause');
  });

  it('a value thrown that is no error: as text', () => {
    expect(loggedError('just text')).toEqual({ value: 'just text' });
    expect(loggedError(undefined)).toEqual({ value: 'undefined' });
  });
});
