import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '../../infra/bundling';
import { FUNCTIONS, OPERATION_IDS } from '../../functions/table';
import { startTestApi, type TestApi } from '../support/api';
import { startFakeManagementApi, type FakeManagementApi } from '../support/fake-management-api';

/**
 * The scale rule: nothing on the request path calls API Gateway's management API. The request
 * path is the same code locally and in AWS (the authorizer reads the key registry, the functions
 * read the principal from the authorizer's context), so this holds for the deployed stages too.
 */
let fake: FakeManagementApi;
let api: TestApi;

beforeAll(async () => {
  fake = await startFakeManagementApi();
  // Where any API Gateway client made by the code under test would send its calls.
  process.env.AWS_ENDPOINT_URL_API_GATEWAY = fake.endpoint;
  api = await startTestApi();
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_API_GATEWAY;
  await api.close();
  await fake.close();
});

describe('the request path', () => {
  it('makes no management call during a burst of requests: valid keys of every plan, bad tokens, every operation', async () => {
    const keys = [
      'local-free-key',
      'local-pro-key',
      'local-business-key',
      'local-enterprise-key',
      'made-up-token',
      'another-guess',
    ];
    const requests = Array.from({ length: 120 }, (_, i) => {
      const key = keys[i % keys.length] as string;
      if (i % 3 === 0) return api.request('POST', '/pets', { key, body: { name: `Burst ${i}`, categoryId: 1 } });
      if (i % 3 === 1) return api.request('GET', '/pets?limit=5', { key });
      return api.request('GET', '/pets/1', { key });
    });
    const statuses = (await Promise.all(requests)).map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(40);
    expect(statuses.every((status) => [200, 201, 401, 404].includes(status))).toBe(true);
    expect(fake.calls).toEqual([]);
  });

  it('does not even contain an API Gateway client: the operations and the authorizer are bundled without one', async () => {
    const root = join(import.meta.dirname, '..', '..');
    for (const entry of [...OPERATION_IDS, 'authorizer' as const]) {
      const result = await build({
        ...esbuildOptionsFor(join(root, FUNCTIONS[entry].handler), join(root, 'bench', '.build', 'unused.mjs')),
        write: false,
        metafile: true,
      });
      const inputs = Object.keys(result.metafile?.inputs ?? {});
      expect(inputs.some((input) => input.includes('@aws-sdk/client-dynamodb'))).toBe(true);
      expect([entry, inputs.filter((input) => input.includes('client-api-gateway'))]).toEqual([entry, []]);
    }
  }, 60_000);
});
