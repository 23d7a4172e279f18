import { GetItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { now as serviceClock } from '../clock';
import { integer, text, textIn } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { LIST_INDEX, PET_SHARDS, STATUS_INDEX } from '../dynamodb/table-definition';
import { FirstPageCache } from './first-page-cache';
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
}

export type PetPage = MergedPage;

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
  /** Whose pets (./pet-space.ts): the customers' unless said. */
  readonly space?: PetSpace | undefined;
}

export class DynamoDbPetReads implements PetReads {
  readonly #now: () => number;
  readonly #settleMs: number;
  readonly #cache: FirstPageCache | undefined;
  readonly #space: PetSpace;
  /** Pages without a filter read the table's shards and the listing index's in turn. */
  #unfilteredPages = 0;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    { now = serviceClock, listingSettleMs = LISTING_SETTLE_MS, firstPageCache = true, space = 'customers' }: PetReadOptions = {},
  ) {
    this.#space = space;
    this.#now = now;
    this.#settleMs = listingSettleMs;
    this.#cache = firstPageCache ? new FirstPageCache(now) : undefined;
  }

  /** Strongly consistent, in the pet's shard: a pet a create answered is always found. */
  async get(id: number, deadline?: CallDeadline): Promise<Pet | undefined> {
    const { Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: petKey(id, this.#space), ConsistentRead: true }), {
      abortSignal: deadline?.signalForCall(),
    });
    return item === undefined ? undefined : toPet(item);
  }

  /**
   * A page merged from the shards' queries (./page-merge.ts), eventually consistent, showing no id
   * drawn less than the settle time ago (./pet-ids.ts, LISTING_SETTLE_MS). A first page that this
   * instance serves often may come from its cache, at most half a second old.
   */
  async list(request: PageRequest, deadline?: CallDeadline): Promise<PetPage> {
    if (request.afterId !== 0 || this.#cache === undefined) return this.#read(request, deadline);
    return this.#cache.page(request.status, request.limit, () => this.#read(request, deadline));
  }

  #read({ afterId, limit, status }: PageRequest, deadline: CallDeadline | undefined): Promise<PetPage> {
    const newestId = lastIdDrawnBy(this.#now() - this.#settleMs);
    const fromListIndex = status === undefined && (this.#unfilteredPages++ & 1) === 1;
    return mergedPage(PET_SHARDS, (shard, after, share) => this.#query(shard, status, fromListIndex, after, newestId, share, deadline), afterId, limit);
  }

  /** One shard's pets (of the table, the listing index or the status index) with ids above `after`, up to `newestId`. */
  async #query(
    shard: number,
    status: PetStatus | undefined,
    fromListIndex: boolean,
    after: number,
    newestId: number,
    limit: number,
    deadline: CallDeadline | undefined,
  ): Promise<SourcePage> {
    if (after >= newestId) return { pets: [], resumeAfter: undefined };
    const query = fromListIndex
      ? new QueryCommand({
          TableName: this.tableName,
          IndexName: LIST_INDEX,
          KeyConditionExpression: 'listShard = :key AND id BETWEEN :first AND :last',
          ExpressionAttributeValues: { ':key': text(listShard(shard, this.#space)), ':first': integer(after + 1), ':last': integer(newestId) },
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
            IndexName: STATUS_INDEX,
            KeyConditionExpression: '#key = :key AND id BETWEEN :first AND :last',
            ExpressionAttributeNames: { '#key': 'statusShard' },
            ExpressionAttributeValues: { ':key': text(statusShard(status, shard, this.#space)), ':first': integer(after + 1), ':last': integer(newestId) },
            Limit: limit,
          });
    const { Items = [], LastEvaluatedKey } = await this.client.send(query, { abortSignal: deadline?.signalForCall() });
    const stoppedAt = textIn(LastEvaluatedKey, 'sk');
    return { pets: Items.map(toPet), resumeAfter: stoppedAt === undefined ? undefined : Number(stoppedAt) };
  }
}
