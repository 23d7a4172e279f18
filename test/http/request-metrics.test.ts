import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readLogLevel, setLogLevel, setLogSink, writeLog } from '../../shared/log';
import { REQUEST_METRICS } from '../../shared/http/request-metrics';
import { FREE_KEY, testApiOnClock } from '../support/api';

/**
 * Every request's log line carries its metrics in CloudWatch's embedded metric format (EMF): the
 * directive names metrics that are numbers on the line, under dimensions that are on the line, of
 * low cardinality (operation, plan; never a key id or an address). LOG_LEVEL drops lines below it
 * but never the metrics.
 */
const clock = testApiOnClock(Date.UTC(2026, 10, 23, 12, 0, 30));
let lines: string[] = [];
beforeAll(() => {
  setLogSink((line) => lines.push(line));
});
let restoreLevel: (() => void) | undefined;
afterEach(() => {
  restoreLevel?.();
  restoreLevel = undefined;
});

async function linesOf(send: () => Promise<unknown>): Promise<Record<string, any>[]> {
  lines = [];
  await send();
  return lines.map((line) => JSON.parse(line) as Record<string, any>).filter((entry) => entry.operation !== undefined);
}

/**
 * What CloudWatch requires of an EMF line (docs: "Specification: Embedded metric format"): every
 * request metric by operation (and plan), each dimension a string member of the line; a 5XX
 * answer's also by operation and version (the release gate's: infra/releases.ts).
 */
function expectEmf(entry: Record<string, any>): void {
  const aws = entry._aws;
  expect(aws.Timestamp).toEqual(expect.any(Number));
  const failed = entry.Status5xx === 1;
  expect(aws.CloudWatchMetrics).toHaveLength(failed ? 2 : 1);
  const [directive, byVersion] = aws.CloudWatchMetrics;
  for (const { Namespace } of aws.CloudWatchMetrics) expect(Namespace).toBe('PetStore/local'); // METRICS_NAMESPACE unset: the local run's
  for (const set of directive.Dimensions as string[][]) {
    for (const dimension of set) {
      expect(['operation', 'plan']).toContain(dimension);
      expect(typeof entry[dimension]).toBe('string');
    }
  }
  expect(directive.Metrics.map((metric: { Name: string }) => metric.Name).sort()).toEqual(
    Object.values(REQUEST_METRICS).sort(),
  );
  for (const { Name, Unit } of directive.Metrics) {
    expect(typeof entry[Name]).toBe('number');
    expect(['Count', 'Milliseconds']).toContain(Unit);
  }
  if (!failed) {
    expect(entry.version).toBeUndefined();
    return;
  }
  expect(byVersion).toEqual({
    Namespace: 'PetStore/local',
    Dimensions: [['operation', 'version']],
    Metrics: [{ Name: 'Status5xx', Unit: 'Count' }],
  });
  expect(entry.version).toBe('$LATEST'); // AWS_LAMBDA_FUNCTION_VERSION unset: not in Lambda
}

describe('per-request metrics (EMF) in the request line', () => {
  it('a 200, a 400 and a 201: requests, latency and the status class, by operation and plan', async () => {
    const api = clock.api();
    const [listed] = await linesOf(() => api.request('GET', '/pets?limit=1'));
    expectEmf(listed!);
    expect(listed).toMatchObject({
      operation: 'listPets',
      plan: 'enterprise',
      Requests: 1,
      Status2xx: 1,
      Status4xx: 0,
      Status5xx: 0,
      RateLimited: 0,
      KeySuspended: 0,
    });
    expect(listed!.Latency).toBe(listed!.durationMs);
    expect(listed!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['operation', 'plan'], ['operation']]);

    const [invalid] = await linesOf(() => api.request('GET', '/pets?limit=0'));
    expectEmf(invalid!);
    expect(invalid).toMatchObject({ operation: 'listPets', Status2xx: 0, Status4xx: 1, Status5xx: 0 });

    const [created] = await linesOf(() => api.request('POST', '/pets', { body: { name: 'Metered', categoryId: 1 } }));
    expectEmf(created!);
    expect(created).toMatchObject({ operation: 'createPet', Status2xx: 1 });
  });

  it('429s by code: rate_limited, then key_suspended, per plan', async () => {
    clock.setTime(Date.UTC(2026, 10, 23, 12, 5, 1));
    const api = clock.api();
    for (let i = 0; i < 60; i += 1)
      expect((await api.request('GET', '/pets?limit=1', { key: FREE_KEY })).status).toBe(200);
    const [limited] = await linesOf(() => api.request('GET', '/pets?limit=1', { key: FREE_KEY }));
    expect(limited).toMatchObject({
      status: 429,
      code: 'rate_limited',
      plan: 'free',
      RateLimited: 1,
      KeySuspended: 0,
      Status4xx: 1,
    });
    clock.setTime(clock.time() + 1_000); // its Retry-After ignored: from now on refusals count toward a suspension
    let suspended: Record<string, any> | undefined;
    for (let i = 0; i < 200 && suspended === undefined; i += 1) {
      const [line] = await linesOf(() => api.request('GET', '/pets?limit=1', { key: FREE_KEY }));
      if (line?.code === 'key_suspended') suspended = line;
    }
    expect(suspended).toMatchObject({ status: 429, plan: 'free', RateLimited: 0, KeySuspended: 1 });
    expectEmf(suspended!);
  });

  it('no dimension of high cardinality: never a key id, an address or a request id', async () => {
    const [line] = await linesOf(() => clock.api().request('GET', '/pets?limit=1'));
    const dimensions = (line!._aws.CloudWatchMetrics as { Dimensions: string[][] }[]).flatMap(({ Dimensions }) =>
      Dimensions.flat(),
    );
    expect(dimensions).not.toContain('keyId');
    expect(dimensions).not.toContain('requestId');
    expect(new Set(dimensions)).toEqual(new Set(['operation', 'plan']));
  });
});

describe("the authorizer's refusals (EMF), which a release of the authorizer is judged by", () => {
  it('a 401 (no valid key): Refusals 1, by function and by function and version; an allowed request has none', async () => {
    clock.setTime(Date.UTC(2026, 10, 23, 13, 0, 1));
    const api = clock.api();
    const [refused] = await linesOf(() => api.request('GET', '/pets?limit=1', { key: 'not-a-key-of-anyone' }));
    expect(refused).toMatchObject({
      status: 401,
      code: 'unauthorized',
      function: 'authorizer',
      version: '$LATEST',
      Refusals: 1,
    });
    expect(refused!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'PetStore/local',
        Dimensions: [['function'], ['function', 'version']],
        Metrics: [{ Name: 'Refusals', Unit: 'Count' }],
      },
    ]);
    const allowed = await linesOf(() => api.request('GET', '/pets?limit=1'));
    expect(allowed.map((line) => line.Refusals)).toEqual([undefined]);
  });

  it("the check before traffic's request (its documentation address) is refused without the metric: it asks the version directly, not through the alias the gate counts", async () => {
    const { handler } = await import('../../functions/authorizer/handler');
    const { CHECK_ADDRESS } = await import('../../shared/release-check/check-identity');
    const { authorizerEvent } = await import('../../shared/release-check/gateway-events');
    const { OPERATION_ROUTES } = await import('../../shared/http/operation-routes.generated');
    const refusalOf = async (sourceIp: string) => {
      lines = [];
      const event = authorizerEvent({
        route: OPERATION_ROUTES.listPets,
        headers: { Authorization: 'Bearer not-a-key-of-anyone' },
        sourceIp,
        arrivedAt: clock.time(),
      });
      await expect(handler(event as never)).rejects.toThrow('Unauthorized');
      return JSON.parse(lines.at(-1)!) as Record<string, any>;
    };
    clock.setTime(Date.UTC(2026, 10, 23, 13, 5, 1));
    expect(await refusalOf(CHECK_ADDRESS)).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((await refusalOf(CHECK_ADDRESS)).Refusals).toBeUndefined();
    expect((await refusalOf('198.51.100.7')).Refusals).toBe(1);
  });

  it('a 429 (the address over its allowance) is a refusal too', async () => {
    clock.setTime(Date.UTC(2026, 10, 23, 13, 10, 1));
    const api = clock.api();
    let line: Record<string, any> | undefined;
    for (let i = 0; i < 200 && line?.status !== 429; i += 1)
      [line] = await linesOf(() => api.request('GET', '/pets?limit=1', { key: `unknown-${i}` }));
    expect(line).toMatchObject({ status: 429, code: 'rate_limited', Refusals: 1 });
  });
});

describe('LOG_LEVEL', () => {
  it('warn: the request line (info) is dropped but its metrics stay, on a line of their own', async () => {
    restoreLevel = setLogLevel('warn');
    const [line] = await linesOf(() => clock.api().request('GET', '/pets?limit=1'));
    expectEmf(line!);
    expect(line!.requestId).toBeUndefined();
    expect(line!.msg).toBeUndefined();
    expect(line).toMatchObject({ operation: 'listPets', plan: 'enterprise', Requests: 1 });
  });

  it('debug: the whole request line; error: the metrics alone, while an error line (a 5xx) is whole', async () => {
    restoreLevel = setLogLevel('debug');
    const [whole] = await linesOf(() => clock.api().request('GET', '/pets?limit=1'));
    expect(whole).toMatchObject({ level: 'info', msg: 'request', requestId: expect.any(String), Requests: 1 });
    restoreLevel();
    restoreLevel = setLogLevel('error');
    const [metricsOnly] = await linesOf(() => clock.api().request('GET', '/pets?limit=1'));
    expect(Object.keys(metricsOnly!).sort()).toEqual(
      ['_aws', 'operation', 'plan', ...Object.values(REQUEST_METRICS)].sort(),
    );
    lines = [];
    writeLog({ level: 'error', msg: 'request', requestId: 'r-1', operation: 'getPet', status: 500 }, '"Requests":1');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'request',
        requestId: 'r-1',
        operation: 'getPet',
        status: 500,
        Requests: 1,
      }),
    ]);
  });

  it('reads debug, info, warn, error and silent in any case; anything else is info, and says so on stderr', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (const level of ['debug', 'INFO', 'Warn', 'error', 'silent'])
        expect(readLogLevel(level)).toBe(level.toLowerCase());
      expect(readLogLevel(undefined)).toBe('info');
      expect(stderr).not.toHaveBeenCalled();
      expect(readLogLevel('verbose')).toBe('info');
      expect(stderr).toHaveBeenCalledWith(
        'LOG_LEVEL "verbose" is not one of debug, info, warn, error, silent; logging at info.\n',
      );
    } finally {
      stderr.mockRestore();
    }
  });

  it('a request without a plan (a function reached without the authorizer) has the operation alone as its dimension', async () => {
    const { handler } = (await import('../../functions/listPets/handler')) as unknown as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
    };
    const { lambdaContext } = await import('../../local/api-gateway-event');
    const [line] = await linesOf(() =>
      handler(
        {
          httpMethod: 'GET',
          resource: '/pets',
          path: '/pets',
          headers: {},
          multiValueHeaders: {},
          queryStringParameters: null,
          multiValueQueryStringParameters: null,
          pathParameters: null,
          body: null,
          isBase64Encoded: false,
          requestContext: { requestId: 'no-plan' },
        },
        lambdaContext('metrics', 3_000),
      ),
    );
    expect(line).toMatchObject({ status: 401, Status4xx: 1 });
    expect(line!.plan).toBeUndefined();
    expect(line!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['operation']]);
    expectEmf(line!);
  });
});
