import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KEY_MIRROR_METRICS } from '../../shared/auth/key-mirror';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import { DEMO_KEYS } from '../../local/demo-keys';
import { testDatabase } from '../support/database';
import { startFakeManagementApi, type FakeManagementApi } from '../support/fake-management-api';

/**
 * The key mirror's handler (functions/keyMirror/handler.ts) as Lambda runs it: its settings read
 * from the environment when it is first imported (shared/config.ts), so each test sets them, then
 * imports it afresh. What one run copies, and how: test/integration/key-mirror.test.ts.
 */
const SETTINGS = [
  'REST_API_ID',
  'API_STAGE',
  'RELEASE_API_KEY_ID',
  // Where the SDK's API Gateway client sends its calls (the handler's client names no endpoint),
  // and the credentials it signs them with, which the fake does not check.
  'AWS_ENDPOINT_URL_API_GATEWAY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
] as const;
type Setting = (typeof SETTINGS)[number];
const saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));

function setEnv(values: Partial<Record<Setting, string | undefined>>): void {
  for (const name of SETTINGS) {
    const value = values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

let restoreSink = () => {};

/** The handler, imported afresh with these settings, and the log lines it writes. */
async function handlerWith(settings: Partial<Record<Setting, string>>) {
  setEnv(settings);
  vi.resetModules();
  const log = await import('../../shared/log');
  const lines: string[] = [];
  const previous = log.setLogSink((line) => lines.push(line));
  restoreSink = () => log.setLogSink(previous);
  const { handler } = await import('../../functions/keyMirror/handler');
  return { handler, lines };
}

afterEach(() => {
  restoreSink();
  restoreSink = () => {};
  setEnv(saved);
  vi.resetModules();
});

describe('the key mirror handler', () => {
  it.each([
    ['REST_API_ID', { API_STAGE: 'v1' }],
    ['API_STAGE', { REST_API_ID: 'api123' }],
  ] as const)('refuses to run without %s, before any call', async (_unset, settings) => {
    const { handler, lines } = await handlerWith(settings);
    await expect(handler()).rejects.toThrow(new Error('REST_API_ID and API_STAGE must be set for the key mirror'));
    expect(lines).toEqual([]);
  });

  describe('with its settings, against the fake management API and this file’s table', () => {
    let fake: FakeManagementApi;
    let db: ReturnType<typeof testDatabase>;

    beforeAll(async () => {
      // The table test/support/table-per-file.ts made for this file.
      db = testDatabase();
      fake = await startFakeManagementApi();
      fake.keys.set('k-pro', { id: 'k-pro', value: 'mirrored-pro-key-value', enabled: true });
      fake.plans.set('p-pro', {
        id: 'p-pro',
        apiStages: [{ apiId: 'api123', stage: 'v1' }],
        tags: { 'petstore:api-id': 'api123', 'petstore:plan': 'pro' },
        keyIds: ['k-pro'],
      });
    });

    afterAll(() => fake?.close());

    it('copies the stage’s keys into the registry and writes its one log line, which is its metrics', async () => {
      const { handler, lines } = await handlerWith({
        REST_API_ID: 'api123',
        API_STAGE: 'v1',
        AWS_ENDPOINT_URL_API_GATEWAY: fake.endpoint,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      });
      const startedAt = Date.now();
      await expect(handler()).resolves.toBeUndefined();

      expect(fake.calls.map((call) => call.split('?')[0])).toEqual(['GET /usageplans', 'GET /usageplans/p-pro/keys']);
      const registry = new KeyRegistry(db.documentClient, db.tableName);
      expect(await registry.resolve('mirrored-pro-key-value')).toEqual({
        keyId: keyIdOf(hashApiKey('mirrored-pro-key-value')),
        plan: 'pro',
        limits: STANDARD_PLAN_LIMITS.pro,
      });
      // The registry is the stage's copy: the demo keys the set-up registered are in no usage plan.
      expect(await registry.resolve(DEMO_KEYS[0]!.apiKey)).toBeUndefined();

      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!);
      expect(line).toMatchObject({
        level: 'info',
        msg: 'key mirror',
        usagePlans: 1,
        keys: 1,
        written: 1,
        removed: DEMO_KEYS.length,
        managementCalls: 2,
        problems: [],
        [KEY_MIRROR_METRICS.apiIdDimension]: 'api123',
        [KEY_MIRROR_METRICS.succeeded]: 1,
        [KEY_MIRROR_METRICS.keys]: 1,
        [KEY_MIRROR_METRICS.calls]: 2,
        _aws: { CloudWatchMetrics: [{ Namespace: KEY_MIRROR_METRICS.namespace, Dimensions: [['ApiId']] }] },
      });
      expect(line._aws.Timestamp).toBeGreaterThanOrEqual(startedAt);
    });
  });
});
