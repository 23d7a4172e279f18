import { GetItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { now as serviceClock } from '../clock';
import { integer, text, textIn } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { LISTING_SET_INDEXES, PET_SHARDS } from '../dynamodb/table-definition';
import { FirstPageCache } from './first-page-cache';
import { FoundPetCache } from './found-pet-cache';
import { mergedPage, type MergedPage, type SourcePage } from './page-merge';
import { lastIdDrawnBy, LISTING_SETTLE_MS } from './pet-ids';
import { listShard, petKey, petSortKey, shardPartition, statusShard, toPet } from './pet-items';
import type { PetSpace } from './pet-space';
import type { Pet, PetStatus } from './schema';

export interface PageRequest {
  /** Return pets with an id greater than this (0 for the first page). */
  readonly afterId: number;
  readonly limit: number;
  readonly status: PetStatus | undefined;
  /** The newest id the previous page could show (its cursor's): this page shows pets up to it at least. */
  readonly newestId?: number | undefined;
}

export interface PetPage extends MergedPage {
  /** The newest id this page could show (what its cursor carries to the next). */
  readonly newestId: number;
}

/** Reading pets: what getPet and listPets need of the table (their bundles hold no write). */
export interface PetReads {
  get(id: number, deadline?: CallDeadline): Promise<Pet | undefined>;
  list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage>;
}

export interface PetReadOptions {
  readonly now?: (() => number) | undefined;
  /** How old an id must be before a page shows it (LISTING_SETTLE_MS; 0 in most tests, which list what they just made). */
  readonly listingSettleMs?: number | undefined;
  /** Serve busy first pages from memory for up to half a second (./first-page-cache.ts); off in most tests. */
  readonly firstPageCache?: boolean | undefined;
  /** Serve found pets from memory for up to a second (./found-pet-cache.ts); off in most tests. */
  readonly foundPetCache?: boolean | undefined;
  /** How many of each kind's listing sets pages read in turn (LISTING_SET_INDEXES): all unless said (LISTING_SETS=1: the bench compares). */
  readonly listingSets?: number | undefined;
  /** Whose pets (./pet-space.ts): the customers' unless said. */
  readonly space?: PetSpace | undefined;
}

/** What each shard's query for one page shares. */
interface PageSource {
  readonly status: PetStatus | undefined;
  /** The index of the listing set read (LISTING_SET_INDEXES); undefined: the table's own shards. */
  readonly index: string | undefined;
  /** The highest id the page may show. */
  readonly newestId: number;
  readonly deadline: CallDeadline | undefined;
}

export class DynamoDbPetReads implements PetReads {
  readonly #now: () => number;
  readonly #settleMs: number;
  readonly #cache: FirstPageCache<PetPage> | undefined;
  readonly #found: FoundPetCache | undefined;
  readonly #space: PetSpace;
  readonly #sets: number;
  /** Pages of each filter read their kind's sets in turn (LISTING_SET_INDEXES), each filter counted apart (else pages of two filters in turn would each keep to one set). */
  readonly #pagesRead = new Map<PetStatus | undefined, number>();

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    {
      now = serviceClock,
      listingSettleMs = LISTING_SETTLE_MS,
      firstPageCache = true,
      foundPetCache = true,
      listingSets = 2,
      space = 'customers',
    }: PetReadOptions = {},
  ) {
    this.#space = space;
    this.#now = now;
    this.#settleMs = listingSettleMs;
    this.#sets = listingSets;
    this.#cache = firstPageCache ? new FirstPageCache<PetPage>(now) : undefined;
    this.#found = foundPetCache ? new FoundPetCache(now) : undefined;
  }

  /** Strongly consistent, in the pet's shard: a pet a create answered is always found (a found one may come from memory, ./found-pet-cache.ts). */
  async get(id: number, deadline?: CallDeadline): Promise<Pet | undefined> {
    const read = async () => {
      const { Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: petKey(id, this.#space), ConsistentRead: true }),
        {
          abortSignal: deadline?.signalForCall(),
        },
      );
      return item === undefined ? undefined : toPet(item);
    };
    return this.#found === undefined ? read() : this.#found.pet(id, read);
  }

  /**
   * A page merged from the shards' queries (./page-merge.ts), eventually consistent, showing no id
   * drawn less than the settle time ago (./pet-ids.ts, LISTING_SETTLE_MS) by this instance's
   * clock, but every id up to the previous page's bound (an instance whose clock is behind still
   * shows the pet that made the previous page say more follow). A first page that this instance
   * serves often may come from its cache, at most half a second old.
   */
  async list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage> {
    if (request.afterId !== 0 || this.#cache === undefined) return this.#read(request, deadline);
    return this.#cache.page(request.status, request.limit, () => this.#read(request, deadline));
  }

  async #read(
    { afterId, limit, status, newestId: previousNewestId = 0 }: PageRequest,
    deadline: CallDeadline | undefined,
  ): Promise<PetPage> {
    const newestId = Math.max(lastIdDrawnBy(this.#now() - this.#settleMs), previousNewestId);
    const sets = status === undefined ? LISTING_SET_INDEXES.unfiltered : LISTING_SET_INDEXES.byStatus;
    const turn = this.#pagesRead.get(status) ?? 0;
    this.#pagesRead.set(status, turn + 1);
    const set = sets[turn % Math.min(this.#sets, sets.length)];
    const source: PageSource = { status, index: set, newestId, deadline };
    const page = await mergedPage(
      PET_SHARDS,
      (shard, after, share) => this.#query(source, shard, after, share),
      afterId,
      limit,
    );
    return { ...page, newestId };
  }

  /** One shard's pets (of the table, or of one of the listing sets' indexes) with ids above `after`, up to `newestId`. */
  async #query(
    { status, index, newestId, deadline }: PageSource,
    shard: number,
    after: number,
    limit: number,
  ): Promise<SourcePage> {
    if (after >= newestId) return { pets: [], resumeAfter: undefined };
    const query =
      index !== undefined && status === undefined
        ? new QueryCommand({
            TableName: this.tableName,
            IndexName: index,
            KeyConditionExpression: 'listShard = :key AND id BETWEEN :first AND :last',
            ExpressionAttributeValues: {
              ':key': text(listShard(shard, this.#space)),
              ':first': integer(after + 1),
              ':last': integer(newestId),
            },
            Limit: limit,
          })
        : status === undefined
          ? new QueryCommand({
              TableName: this.tableName,
              KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
              ExpressionAttributeValues: {
                ':pk': text(shardPartition(shard, this.#space)),
                ':first': text(petSortKey(after + 1)),
                ':last': text(petSortKey(newestId)),
              },
              Limit: limit,
            })
          : new QueryCommand({
              TableName: this.tableName,
              IndexName: index,
              KeyConditionExpression: '#key = :key AND id BETWEEN :first AND :last',
              ExpressionAttributeNames: { '#key': 'statusShard' },
              ExpressionAttributeValues: {
                ':key': text(statusShard(status, shard, this.#space)),
                ':first': integer(after + 1),
                ':last': integer(newestId),
              },
              Limit: limit,
            });
    const { Items = [], LastEvaluatedKey } = await this.client.send(query, { abortSignal: deadline?.signalForCall() });
    const stoppedAt = textIn(LastEvaluatedKey, 'sk');
    return { pets: Items.map(toPet), resumeAfter: stoppedAt === undefined ? undefined : Number(stoppedAt) };
  }
}
