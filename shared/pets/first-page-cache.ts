import type { PetStatus } from './pet-status';
import type { MergedPage } from './page-merge';

/** A first page is served from memory only by an instance that was asked for it this often within a second... */
export const BUSY_REQUESTS = 5;
/** ...and for at most this long after it was read (decisions.md: a listing may be up to a second behind). */
export const CACHED_PAGE_MS = 1_000;

interface Entry {
  /** When the page was last asked for, the latest BUSY_REQUESTS times (oldest first). */
  readonly askedAt: number[];
  page?: MergedPage | undefined;
  readAt?: number | undefined;
}

/**
 * First pages (no cursor) of a busy instance, by filter and page size: the page every client of a
 * listing starts with, which would otherwise read every shard on every request. A quiet instance
 * always reads afresh, and a last page (no next page) is never kept: served stale, it could end a
 * walk before a pet that was created meanwhile. At most 4 filters × 100 sizes entries.
 */
export class FirstPageCache {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  async page(status: PetStatus | undefined, limit: number, read: () => Promise<MergedPage>): Promise<MergedPage> {
    const key = `${status ?? ''}:${limit}`;
    const nowMs = this.now();
    let entry = this.#entries.get(key);
    if (entry === undefined) this.#entries.set(key, (entry = { askedAt: [] }));
    entry.askedAt.push(nowMs);
    if (entry.askedAt.length > BUSY_REQUESTS) entry.askedAt.shift();
    const busy = entry.askedAt.length === BUSY_REQUESTS && nowMs - (entry.askedAt[0] as number) < 1_000;
    if (busy && entry.page !== undefined && nowMs - (entry.readAt as number) < CACHED_PAGE_MS) return entry.page;
    const page = await read();
    const keep = busy && page.hasMore;
    entry.page = keep ? page : undefined;
    entry.readAt = keep ? nowMs : undefined;
    return page;
  }
}
