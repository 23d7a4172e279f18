import type { PetStatus } from './pet-status';
import type { MergedPage } from './page-merge';

/** A first page is served from memory only by an instance that was asked for it this often within a second... */
export const BUSY_REQUESTS = 5;
/**
 * ...and for at most this long after it was read, so a busy instance reads each first page at most
 * twice a second. A page so kept is up to this much older than the settle time (LISTING_SETTLE_MS)
 * makes it: decisions.md lets a busy first page come from a cache of at most a second.
 */
export const CACHED_PAGE_MS = 500;

interface Entry<Page> {
  /** When the page was last asked for, the latest BUSY_REQUESTS times (oldest first). */
  readonly askedAt: number[];
  /** The page kept, and when it was read. */
  kept?: { readonly page: Page; readonly readAt: number } | undefined;
}

/**
 * First pages (no cursor) of a busy instance, by filter and page size: the page every client of a
 * listing starts with, which would otherwise read every shard on every request. A quiet instance
 * always reads afresh, and a last page (no next page) is never kept: served stale, it could end a
 * walk before a pet that was created meanwhile. At most 4 filters × 100 sizes entries.
 */
export class FirstPageCache<Page extends MergedPage = MergedPage> {
  readonly #entries = new Map<string, Entry<Page>>();

  constructor(private readonly now: () => number) {}

  async page(status: PetStatus | undefined, limit: number, read: () => Promise<Page>): Promise<Page> {
    const key = `${limit}:${status}`;
    const nowMs = this.now();
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      // Stryker disable next-line ArrayDeclaration: a first element that is no time is pushed out by the fifth request, before it could count
      entry = { askedAt: [] };
      this.#entries.set(key, entry);
    }
    entry.askedAt.push(nowMs);
    if (entry.askedAt.length > BUSY_REQUESTS) entry.askedAt.shift();
    const busy = entry.askedAt.length === BUSY_REQUESTS && nowMs - (entry.askedAt[0] as number) < 1_000;
    if (busy && entry.kept !== undefined && nowMs - entry.kept.readAt < CACHED_PAGE_MS) return entry.kept.page;
    const page = await read();
    entry.kept = busy && page.hasMore ? { page, readAt: nowMs } : undefined;
    return page;
  }
}
