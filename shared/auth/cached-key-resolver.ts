import type { ApiKeyResolver, GatewayKeyContext, Principal } from './principal';
import { now as clockNow } from '../clock';
import { hashApiKey } from './api-key-hash';

/**
 * Remembers resolved keys in the container for a short while, so that a warm request does not
 * pay a lookup. Only known keys are remembered, for at most `ttlMs`: a revoked key stops working
 * within that time, and a new key works at once. Entries are kept by hash, never by the key.
 */
export class CachedKeyResolver implements ApiKeyResolver {
  readonly #entries = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(
    private readonly inner: ApiKeyResolver,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 1_000,
    private readonly now: () => number = clockNow,
  ) {}

  async resolve(apiKey: string, gateway?: GatewayKeyContext): Promise<Principal | undefined> {
    const hash = hashApiKey(apiKey);
    const cached = this.#entries.get(hash);
    if (cached !== undefined && cached.expiresAt > this.now()) return cached.principal;
    this.#entries.delete(hash);
    const principal = await this.inner.resolve(apiKey, gateway);
    if (principal !== undefined) this.#remember(hash, principal);
    return principal;
  }

  #remember(hash: string, principal: Principal): void {
    if (this.#entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(hash, { principal, expiresAt: this.now() + this.ttlMs });
  }
}
