import LinkHeader from 'http-link-header';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { retryingFetch, type RetryingFetchOptions } from './retry';
import type { components, operations, paths } from './schema';

/**
 * A typed client of the pet store API: request and response types are generated from the
 * interface description (client/schema.d.ts, by `npm run generate`); 429 and 503 are retried as the
 * interface asks (Retry-After, then exponential backoff with jitter, see ./retry.ts). Each create
 * carries an `Idempotency-Key` (a fresh UUID v4 unless the caller gives one) that its retries
 * keep, so a retried create never adds a second animal.
 */
export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type ApiError = components['schemas']['Error'];
export type ListPetsQuery = NonNullable<operations['listPets']['parameters']['query']>;
export type { RetryPolicy } from './retry';
export { DEFAULT_RETRY_POLICY } from './retry';

export interface PetStoreClientOptions extends RetryingFetchOptions {
  /** e.g. http://localhost:3000/v1 or a stage's BaseUrl output. */
  readonly baseUrl: string;
  readonly apiKey: string;
}

export interface PetStoreClient {
  /** The generated, typed client: `api.GET('/pets/{petId}', { params: { path: { petId: 1 } } })`. */
  readonly api: Client<paths>;
  /** Every page of `GET /pets`, following `Link: rel="next"` until the last page. */
  pages(query?: Omit<ListPetsQuery, 'cursor'>): AsyncGenerator<Pet[], void, undefined>;
}

export class PetStoreApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError | undefined,
  ) {
    super(body === undefined ? `HTTP ${status}` : `${body.code}: ${body.message}`);
    this.name = 'PetStoreApiError';
  }
}

export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options),
  });
  api.use(idempotentCreates);

  async function* pages(query: Omit<ListPetsQuery, 'cursor'> = {}): AsyncGenerator<Pet[], void, undefined> {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await api.GET('/pets', {
        params: { query: { ...query, ...(cursor === undefined ? {} : { cursor }) } },
      });
      if (data === undefined) throw new PetStoreApiError(response.status, error);
      yield data;
      cursor = nextCursor(response.headers.get('link'));
    } while (cursor !== undefined);
  }

  return { api, pages };
}

/**
 * Names every create before it is sent: the retries of ./retry.ts resend this same request, key
 * included. A key the caller passes (`params: { header: { 'Idempotency-Key': … } }`) is kept.
 */
const idempotentCreates: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method !== 'POST' || schemaPath !== '/pets' || request.headers.has('idempotency-key')) return undefined;
    request.headers.set('Idempotency-Key', crypto.randomUUID());
    return request;
  },
};

/** The `cursor` of the `rel="next"` link (RFC 8288), if there is one. */
export function nextCursor(link: string | null): string | undefined {
  if (link === null) return undefined;
  const [next] = LinkHeader.parse(link).rel('next');
  return next === undefined
    ? undefined
    : (new URL(next.uri, 'http://base.invalid').searchParams.get('cursor') ?? undefined);
}
