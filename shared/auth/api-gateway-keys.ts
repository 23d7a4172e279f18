import { APIGatewayClient, GetUsagePlanKeysCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import type { GatewayKeySource, GatewayPlanKey, GatewayUsagePlan } from './key-mirror';

/**
 * The key mirror's reads of API Gateway's management API, with the AWS SDK: the only code of the
 * service that calls it. Pages are as large as API Gateway allows (500), and calls are spaced out
 * (at most one every `minIntervalMs`), so that a run never takes a burst out of the account's
 * 10 calls a second that the console shares. Key values come only with the keys of the stage's
 * usage plans (GetUsagePlanKeys); the region's key list (GetApiKeys) is never read.
 */
export const PAGE_SIZE = 500;
/** At most 4 calls a second: under half the account's budget even while a run lasts. */
export const DEFAULT_CALL_INTERVAL_MS = 250;

/**
 * The mirror's client: one attempt per call (a failed run is simply the next minute's to redo,
 * and SDK retries would burst while API Gateway throttles), with a time bound per call that
 * suits pages of 500 items.
 */
export function createManagementClient(settings: {
  readonly region: string;
  readonly endpoint?: string;
}): APIGatewayClient {
  return new APIGatewayClient({
    region: settings.region,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
    ...(settings.endpoint === undefined
      ? {}
      : { endpoint: settings.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
}

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
    await this.#pages(
      (position) => this.client.send(new GetUsagePlansCommand({ limit: PAGE_SIZE, position })),
      (page) => {
        for (const plan of page.items ?? []) {
          if (plan.id === undefined) continue;
          plans.push({
            id: plan.id,
            apiStages: (plan.apiStages ?? []).map((stage) => ({ apiId: stage.apiId, stage: stage.stage })),
            tags: plan.tags ?? {},
          });
        }
      },
    );
    return plans;
  }

  async usagePlanKeys(usagePlanId: string): Promise<GatewayPlanKey[]> {
    const keys: GatewayPlanKey[] = [];
    await this.#pages(
      (position) => this.client.send(new GetUsagePlanKeysCommand({ usagePlanId, limit: PAGE_SIZE, position })),
      (page) => {
        for (const key of page.items ?? [])
          if (key.id !== undefined && key.type === 'API_KEY') keys.push({ id: key.id, value: key.value });
      },
    );
    return keys;
  }

  /** Reads every page, spaced out; a position seen twice is API Gateway misbehaving, not a reason to loop. */
  async #pages<Page extends { position?: string | undefined }>(
    read: (position: string | undefined) => Promise<Page>,
    take: (page: Page) => void,
  ): Promise<void> {
    const seen = new Set<string>();
    let position: string | undefined;
    do {
      const wait = this.#lastCallAt + this.minIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.#lastCallAt = Date.now();
      this.#calls += 1;
      const page = await read(position);
      take(page);
      position = page.position;
      if (position !== undefined) {
        if (seen.has(position)) throw new Error(`API Gateway returned the page position ${position} twice`);
        seen.add(position);
      }
    } while (position !== undefined);
  }
}
