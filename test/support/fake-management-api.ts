import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { createManagementClient } from '../../shared/auth/api-gateway-keys';

/**
 * API Gateway's management API has no local emulator, so this loopback server answers the REST
 * calls the key mirror makes (GET /usageplans, /usageplans/{id}/keys) in API Gateway's JSON form,
 * a few items a page, and records every call; the real SDK client talks to it. `/apikeys` is
 * refused, as the mirror's IAM role would have it refused.
 */
export interface FakeUsagePlan {
  id: string;
  apiStages: { apiId: string; stage: string }[];
  tags?: Record<string, string>;
  keyIds: string[];
}

export interface FakeApiKey {
  id: string;
  value: string;
  /** As set in the console: API Gateway refuses a disabled key itself; the mirror does not see it. */
  enabled: boolean;
  /** Listed in its usage plan without its value (not seen from API Gateway; the mirror must not trust it blindly). */
  valueMissing?: boolean;
}

export interface FakeManagementApi {
  readonly endpoint: string;
  readonly plans: Map<string, FakeUsagePlan>;
  readonly keys: Map<string, FakeApiKey>;
  /** Every call, as `GET /path?query`. */
  readonly calls: string[];
  /** Answer every call with this status (429: throttled) until cleared. */
  failWith: number | undefined;
  /** A client for it, made as the key mirror makes its own (one attempt, bounded). */
  client(): APIGatewayClient;
  close(): Promise<void>;
}

export async function startFakeManagementApi(pageSize = 2): Promise<FakeManagementApi> {
  const plans = new Map<string, FakeUsagePlan>();
  const keys = new Map<string, FakeApiKey>();
  const calls: string[] = [];
  const fake = { plans, keys, calls, failWith: undefined as number | undefined };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    calls.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: object, type?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
      res.end(JSON.stringify(body));
    };
    if (fake.failWith !== undefined)
      return send(fake.failWith, { message: 'Too Many Requests' }, 'TooManyRequestsException');
    // API Gateway returns at most `limit` items and a position while more follow.
    const page = <T>(items: T[]) => {
      const size = Math.min(Number(url.searchParams.get('limit') ?? 25), pageSize);
      const start = Number(url.searchParams.get('position') ?? 0);
      const next = start + size < items.length ? String(start + size) : undefined;
      return { item: items.slice(start, start + size), ...(next === undefined ? {} : { position: next }) };
    };
    if (url.pathname === '/usageplans') {
      return send(200, page([...plans.values()].map(({ keyIds: _, ...plan }) => plan)));
    }
    const planKeys = /^\/usageplans\/([^/]+)\/keys$/.exec(url.pathname);
    if (planKeys) {
      const plan = plans.get(decodeURIComponent(planKeys[1] as string));
      if (plan === undefined) return send(404, { message: 'Invalid Usage Plan ID specified' }, 'NotFoundException');
      const items = plan.keyIds.flatMap((id) => {
        const key = keys.get(id);
        return key === undefined
          ? []
          : [{ id, type: 'API_KEY', ...(key.valueMissing ? {} : { value: key.value }), name: id }];
      });
      return send(200, page(items));
    }
    // The key mirror's role has no right to the region's key list (infra/key-mirror.ts): refused as IAM would.
    if (url.pathname.startsWith('/apikeys'))
      return send(
        403,
        { message: 'not authorized to perform: apigateway:GET on resource /apikeys' },
        'AccessDeniedException',
      );
    send(404, { message: 'no such route' }, 'NotFoundException');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    endpoint,
    client: () => createManagementClient({ region: 'eu-west-1', endpoint }),
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
}
