import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as sdk from '@aws-sdk/client-api-gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayKeyResolver } from '../../shared/auth/api-gateway-key-resolver';
import { translateUnavailableErrors } from '../../shared/dynamodb/datastore-errors';
import { ServiceUnavailableError } from '../../shared/errors';

/**
 * API Gateway's management API has no local emulator, so a small loopback server answers the
 * two REST calls the resolver makes (GET /apikeys/{id}, GET /usageplans?keyId=) in API Gateway's
 * JSON form, and the real SDK client talks to it.
 */
interface FakeKey {
  id: string;
  value: string;
  enabled: boolean;
  plans: object[];
}
const keys = new Map<string, FakeKey>();
let server: Server;
let resolver: ApiGatewayKeyResolver;
let failWith: number | undefined;

const stage = { apiId: 'api123', stage: 'v1' };
const context = { apiKeyId: 'k-pro', apiId: 'api123', stage: 'v1' };

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, body: object, type?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
      res.end(JSON.stringify(body));
    };
    if (failWith !== undefined) return send(failWith, { message: 'Too Many Requests' }, 'TooManyRequestsException');
    const keyMatch = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
    if (keyMatch) {
      const key = keys.get(decodeURIComponent(keyMatch[1] as string));
      if (key === undefined) return send(404, { message: 'Invalid API Key identifier specified' }, 'NotFoundException');
      return send(200, { id: key.id, value: url.searchParams.get('includeValue') === 'true' ? key.value : undefined, enabled: key.enabled });
    }
    if (url.pathname === '/usageplans') return send(200, { item: keys.get(url.searchParams.get('keyId') ?? '')?.plans ?? [] });
    send(404, { message: 'no such route' }, 'NotFoundException');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const client = new sdk.APIGatewayClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  translateUnavailableErrors(client);
  resolver = new ApiGatewayKeyResolver(async () => ({ client, sdk }));

  keys.set('k-pro', { id: 'k-pro', value: 'pro-secret-value', enabled: true, plans: [{ id: 'p1', name: 'Pro', apiStages: [stage], tags: { 'petstore:plan': 'pro' } }] });
  keys.set('k-off', { id: 'k-off', value: 'disabled-value', enabled: false, plans: [{ id: 'p1', apiStages: [stage], tags: { 'petstore:plan': 'pro' } }] });
  keys.set('k-ent', {
    id: 'k-ent',
    value: 'enterprise-value',
    enabled: true,
    plans: [
      { id: 'other', apiStages: [{ apiId: 'another-api', stage: 'v1' }], tags: { 'petstore:plan': 'free' } },
      { id: 'p9', apiStages: [stage], tags: { 'petstore:plan': 'enterprise', 'petstore:per-minute': '12000', 'petstore:per-day': '5000000' } },
    ],
  });
  keys.set('k-ent-quota', {
    id: 'k-ent-quota',
    value: 'quota-value',
    enabled: true,
    plans: [{ id: 'p10', apiStages: [stage], tags: { 'petstore:plan': 'enterprise' }, throttle: { rateLimit: 50, burstLimit: 100 }, quota: { limit: 250000, period: 'DAY' } }],
  });
  keys.set('k-untagged', { id: 'k-untagged', value: 'untagged-value', enabled: true, plans: [{ id: 'x', apiStages: [stage] }] });
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('ApiGatewayKeyResolver', () => {
  it('maps a key to the plan of its usage plan on this stage', async () => {
    expect(await resolver.resolve('pro-secret-value', context)).toEqual({
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10_000 },
    });
  });

  it('reads a custom Enterprise plan\'s limits from its tags, else from its throttle and quota', async () => {
    expect(await resolver.resolve('enterprise-value', { ...context, apiKeyId: 'k-ent' })).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 12_000, perDay: 5_000_000 },
    });
    expect(await resolver.resolve('quota-value', { ...context, apiKeyId: 'k-ent-quota' })).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 3_000, perDay: 250_000 },
    });
  });

  it.each([
    ['a disabled key', 'disabled-value', 'k-off'],
    ['a value that does not match the key id', 'not-the-value', 'k-pro'],
    ['an unknown key id', 'pro-secret-value', 'k-none'],
    ['a key in no tagged plan', 'untagged-value', 'k-untagged'],
  ])('knows nothing of %s', async (_, value, apiKeyId) => {
    expect(await resolver.resolve(value, { ...context, apiKeyId })).toBeUndefined();
  });

  it('knows nothing without a key id, and nothing of a plan bound to another stage', async () => {
    expect(await resolver.resolve('pro-secret-value', { apiId: 'api123' })).toBeUndefined();
    expect(await resolver.resolve('pro-secret-value', { ...context, stage: 'v2' })).toBeUndefined();
  });

  it('turns API Gateway throttling into a 503', async () => {
    failWith = 429;
    try {
      await expect(resolver.resolve('pro-secret-value', context)).rejects.toBeInstanceOf(ServiceUnavailableError);
    } finally {
      failWith = undefined;
    }
  });
});
