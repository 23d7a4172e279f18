import {
  GetApiKeysCommand,
  GetUsagePlanKeysCommand,
  GetUsagePlansCommand,
  type APIGatewayClient,
} from '@aws-sdk/client-api-gateway';
import type { GatewayApiKey, GatewayKeySource, GatewayUsagePlan } from './key-mirror';

/**
 * The key mirror's reads of API Gateway's management API, with the AWS SDK: the only code of the
 * service that calls it. Pages are as large as API Gateway allows (500), and calls are spaced out
 * (at most one every `minIntervalMs`), so that a run never takes a burst out of the account's
 * 10 calls a second that the console shares.
 */
export const PAGE_SIZE = 500;
/** At most 4 calls a second: under half the account's budget even while a run lasts. */
export const DEFAULT_CALL_INTERVAL_MS = 250;

export class ApiGatewayKeySource implements GatewayKeySource {
  #calls = 0;
  #lastCallAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly minIntervalMs: number = DEFAULT_CALL_INTERVAL_MS,
  ) {}

  get calls(): number {
    return this.#calls;
  }

  async usagePlans(): Promise<GatewayUsagePlan[]> {
    const plans: GatewayUsagePlan[] = [];
    let position: string | undefined;
    do {
      const page = await this.#paced(() => this.client.send(new GetUsagePlansCommand({ limit: PAGE_SIZE, position })));
      for (const plan of page.items ?? []) {
        if (plan.id === undefined) continue;
        plans.push({
          id: plan.id,
          apiStages: (plan.apiStages ?? []).map((stage) => ({ apiId: stage.apiId, stage: stage.stage })),
          tags: plan.tags ?? {},
          ...(plan.throttle ? { throttle: { rateLimit: plan.throttle.rateLimit } } : {}),
          ...(plan.quota ? { quota: { limit: plan.quota.limit, period: plan.quota.period } } : {}),
        });
      }
      position = page.position;
    } while (position !== undefined);
    return plans;
  }

  async usagePlanKeyIds(usagePlanId: string): Promise<string[]> {
    const ids: string[] = [];
    let position: string | undefined;
    do {
      const page = await this.#paced(() => this.client.send(new GetUsagePlanKeysCommand({ usagePlanId, limit: PAGE_SIZE, position })));
      for (const key of page.items ?? []) if (key.id !== undefined && key.type === 'API_KEY') ids.push(key.id);
      position = page.position;
    } while (position !== undefined);
    return ids;
  }

  /** Every API key of the account and region, with its value (hashed by the mirror, never kept). */
  async apiKeys(): Promise<GatewayApiKey[]> {
    const keys: GatewayApiKey[] = [];
    let position: string | undefined;
    do {
      const page = await this.#paced(() => this.client.send(new GetApiKeysCommand({ includeValues: true, limit: PAGE_SIZE, position })));
      for (const key of page.items ?? []) if (key.id !== undefined) keys.push({ id: key.id, value: key.value, enabled: key.enabled === true });
      position = page.position;
    } while (position !== undefined);
    return keys;
  }

  async #paced<Output>(call: () => Promise<Output>): Promise<Output> {
    const wait = this.#lastCallAt + this.minIntervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.#lastCallAt = Date.now();
    this.#calls += 1;
    return call();
  }
}
