import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  PutItemCommand,
  waitUntilTableExists,
  type AttributeValue,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/create-table';
import type { Item } from '../../shared/dynamodb/attribute-values';
import { TimedCallDeadline } from '../../shared/dynamodb/call-deadline';
import { LIST_INDEX, STATUS_INDEX, STATUS_INDEX_AGAIN } from '../../shared/dynamodb/table-definition';
import { DynamoDbPetReads } from '../../shared/pets/pet-reads';
import { drawPetId, lastIdDrawnBy, LISTING_SETTLE_MS } from '../../shared/pets/pet-ids';
import { petItem } from '../../shared/pets/pet-items';
import type { Pet, PetStatus } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { instrumentedClient } from '../support/instrumented-client';

/**
 * The paths of shared/pets/pet-reads.ts that the repository's own tests leave out: the reads'
 * defaults (the first-page cache on), the alternation of unfiltered pages between the table's
 * shards and the listing index, a shard asked again where it stopped at its Limit, the settle
 * bound that sends no query, no read of what is left of the former layout (`PET`), and the
 * request's deadline on every call. Pets are
 * written straight to DynamoDB Local with ids chosen (time and shard), so each page is known.
 */

const db = testDatabase();
const T0 = Date.UTC(2027, 0, 1);
/** The id drawn at `ms` with these 12 random bits; its shard is `bits % 8` (2^12 is a multiple of 8). */
const idAt = (ms: number, bits: number): number => drawPetId(ms, () => bits);
const statuses: PetStatus[] = ['available', 'pending', 'sold'];

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** A client of DynamoDB Local (or of `endpoint`) that records each command's name and input; `take` hands them over. */
function recordingClient(endpoint: string = db.endpoint) {
  const { client, inputs } = instrumentedClient(endpoint);
  const take = (): Sent[] => inputs.splice(0);
  return { client, take };
}

interface QuerySent {
  readonly index: string;
  /** The partition key's attribute and value. */
  readonly attribute: string;
  readonly key: string;
  readonly first: number;
  readonly last: number;
  readonly limit: number;
}

/** A Query as what it reads: which partition of which index, which ids, how many at most. */
function described({ command, input }: Sent): QuerySent {
  expect(command).toBe('Query');
  const query = input as unknown as QueryCommandInput;
  const values = query.ExpressionAttributeValues as Record<string, AttributeValue>;
  const [name] = (query.KeyConditionExpression as string).split(' ') as [string];
  const bound = (value: AttributeValue | undefined) => Number(value?.S ?? value?.N);
  return {
    index: query.IndexName ?? 'table',
    attribute: query.ExpressionAttributeNames?.[name] ?? name,
    key: (values[':pk'] ?? values[':key'])?.S as string,
    first: bound(values[':first']),
    last: bound(values[':last']),
    limit: query.Limit as number,
  };
}

/** The queries of one round (sent at once, in no promised order), by partition. */
const byKey = (queries: QuerySent[]): QuerySent[] =>
  [...queries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

const put = (tableName: string, item: Item) => db.client.send(new PutItemCommand({ TableName: tableName, Item: item }));

// The first pages' pets: 12, one a millisecond from T0, over every shard (bits 0..11: shards 0..7, then 0..3).
const dozen: Pet[] = Array.from({ length: 12 }, (_, i) => ({
  id: idAt(T0 + i, i),
  name: `dozen ${i}`,
  categoryId: 1,
  status: statuses[i % 3] as PetStatus,
}));
// A minute later, 10 available pets all in shard 3: more than its share of any small page.
const T1 = T0 + 60_000;
const crowded: Pet[] = Array.from({ length: 10 }, (_, i) => ({
  id: idAt(T1 + i, 3 + 8 * i),
  name: `crowded ${i}`,
  categoryId: 2,
  status: 'available',
}));
// Two minutes later, the last id drawn in its millisecond.
const T2 = T0 + 120_000;
const last: Pet = { id: lastIdDrawnBy(T2), name: 'last of its millisecond', categoryId: 3, status: 'sold' };

beforeAll(async () => {
  await Promise.all([...dozen, ...crowded, last].map((pet) => put(db.tableName, petItem(pet, T0, 'nonce'))));
});

describe('a first page that one reads instance serves often', () => {
  it('comes from its memory by default once busy (five asks within a second), at most half a second old; a later page is always read', async () => {
    const { client, take } = recordingClient();
    let nowMs = T0 + 1_000;
    // The reads as getPet and listPets make them, but for the clock and the settle time: the cache is left to its default.
    const reads = new DynamoDbPetReads(client, db.tableName, { now: () => nowMs, listingSettleMs: 0 });
    const firstPage = { pets: dozen.slice(0, 5), hasMore: true, newestId: lastIdDrawnBy(nowMs) };
    for (let ask = 1; ask <= 5; ask += 1) {
      expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
      expect(take().length).toBe(8);
    }
    // Busy: the page read on the fifth ask is answered without a query.
    expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
    expect(take()).toEqual([]);
    // A page after the first is never kept: it is read, and is the next page, not the first again.
    expect(await reads.list({ afterId: (dozen[4] as Pet).id, limit: 5, status: undefined })).toEqual({
      pets: dozen.slice(5, 10),
      hasMore: true,
      newestId: lastIdDrawnBy(nowMs),
    });
    expect(take().length).toBe(8);
    // Half a second after it was read, the first page is read afresh.
    nowMs += 500;
    expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual({
      ...firstPage,
      newestId: lastIdDrawnBy(nowMs),
    });
    expect(take().length).toBe(8);
  });
});

describe('pages without a filter', () => {
  it("read the table's shards and the listing index's in turn, the same pets from each; filtered pages read the two status indexes in turn, counted apart", async () => {
    const { client, take } = recordingClient();
    const reads = new DynamoDbPetReads(client, db.tableName, {
      now: () => T0 + 1_000,
      listingSettleMs: 0,
      firstPageCache: false,
    });
    const newestId = lastIdDrawnBy(T0 + 1_000);
    const firstPage = { pets: dozen.slice(0, 5), hasMore: true, newestId };
    const pending = { pets: dozen.filter((pet) => pet.status === 'pending').slice(0, 5), hasMore: false, newestId };
    // Each shard of one set once, for ids 1 up to the newest, 4 at most (limit 5 over 8: page-merge.ts, shareOf).
    const shardsOf = (index: string, attribute: string, key: (shard: number) => string): QuerySent[] =>
      byKey(
        Array.from({ length: 8 }, (_, shard) => ({
          index,
          attribute,
          key: key(shard),
          first: 1,
          last: newestId,
          limit: 4,
        })),
      );
    const tableShards = shardsOf('table', 'pk', (shard) => `PET#${shard}`);
    const listShards = shardsOf(LIST_INDEX, 'listShard', (shard) => `pets#${shard}`);

    expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
    expect(byKey(take().map(described))).toEqual(tableShards);
    expect(await reads.list({ afterId: 0, limit: 5, status: 'pending' })).toEqual(pending);
    expect(byKey(take().map(described))).toEqual(shardsOf(STATUS_INDEX, 'statusShard', (shard) => `pending#${shard}`));
    expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
    expect(byKey(take().map(described))).toEqual(listShards);
    expect(await reads.list({ afterId: 0, limit: 5, status: 'pending' })).toEqual(pending);
    expect(byKey(take().map(described))).toEqual(
      shardsOf(STATUS_INDEX_AGAIN, 'statusShard', (shard) => `pending#${shard}`),
    );
    expect(await reads.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
    expect(byKey(take().map(described))).toEqual(tableShards);
    expect(await reads.list({ afterId: 0, limit: 5, status: 'pending' })).toEqual(pending);
    expect(byKey(take().map(described))).toEqual(shardsOf(STATUS_INDEX, 'statusShard', (shard) => `pending#${shard}`));
    // Two filters in turn: each goes through both sets (counted apart, or one would keep to one set).
    const sold = { pets: dozen.filter((pet) => pet.status === 'sold').slice(0, 5), hasMore: false, newestId };
    const mixed = new DynamoDbPetReads(client, db.tableName, {
      now: () => T0 + 1_000,
      listingSettleMs: 0,
      firstPageCache: false,
    });
    for (const index of [STATUS_INDEX, STATUS_INDEX_AGAIN]) {
      expect(await mixed.list({ afterId: 0, limit: 5, status: 'pending' })).toEqual(pending);
      expect(byKey(take().map(described))).toEqual(shardsOf(index, 'statusShard', (shard) => `pending#${shard}`));
      expect(await mixed.list({ afterId: 0, limit: 5, status: 'sold' })).toEqual(sold);
      expect(byKey(take().map(described))).toEqual(shardsOf(index, 'statusShard', (shard) => `sold#${shard}`));
    }
    // One set of each kind alone (LISTING_SETS=1, the bench's comparison): every page reads the first.
    const oneSet = new DynamoDbPetReads(client, db.tableName, {
      now: () => T0 + 1_000,
      listingSettleMs: 0,
      firstPageCache: false,
      listingSets: 1,
    });
    for (let page = 0; page < 2; page += 1) {
      expect(await oneSet.list({ afterId: 0, limit: 5, status: undefined })).toEqual(firstPage);
      expect(byKey(take().map(described))).toEqual(tableShards);
      expect(await oneSet.list({ afterId: 0, limit: 5, status: 'pending' })).toEqual(pending);
      expect(byKey(take().map(described))).toEqual(
        shardsOf(STATUS_INDEX, 'statusShard', (shard) => `pending#${shard}`),
      );
    }
  });
});

describe('a shard that holds more than its share of the page', () => {
  // Limit 5 over 8 shards: each is asked for ceil(2 × 6 / 8) + 2 = 4 (page-merge.ts, shareOf).
  const afterId = (crowded[0] as Pet).id - 1;
  const newestId = lastIdDrawnBy(T1 + 1_000);

  it.each([
    ["the table's shards", undefined, 0, 'table', 'pk', (shard: number) => `PET#${shard}`],
    [
      'the listing index (the second unfiltered page)',
      undefined,
      1,
      LIST_INDEX,
      'listShard',
      (shard: number) => `pets#${shard}`,
    ],
    ['the status index', 'available', 0, STATUS_INDEX, 'statusShard', (shard: number) => `available#${shard}`],
    [
      "the status index's second set (the second filtered page)",
      'available',
      1,
      STATUS_INDEX_AGAIN,
      'statusShard',
      (shard: number) => `available#${shard}`,
    ],
  ] as const)(
    'is asked again where its query stopped at its Limit, through %s: the page is full and says more follow',
    // biome-ignore lint/complexity/useMaxParams: vitest's it.each spreads each row of the table into the test's parameters
    async (_, status, pagesBefore, index, attribute, keyOf) => {
      const { client, take } = recordingClient();
      const reads = new DynamoDbPetReads(client, db.tableName, {
        now: () => T1 + 1_000,
        listingSettleMs: 0,
        firstPageCache: false,
      });
      for (let page = 0; page < pagesBefore; page += 1) await reads.list({ afterId, limit: 5, status });
      take();
      expect(await reads.list({ afterId, limit: 5, status })).toEqual({
        pets: crowded.slice(0, 5),
        hasMore: true,
        newestId,
      });
      const queries = take().map(described);
      expect(byKey(queries.slice(0, 8))).toEqual(
        byKey(
          Array.from({ length: 8 }, (_, shard) => ({
            index,
            attribute,
            key: keyOf(shard),
            first: afterId + 1,
            last: newestId,
            limit: 4,
          })),
        ),
      );
      // Shard 3 gave its 4 and stopped: it alone is asked for the rest of the page (6 - 4 known, and 2 more), after the last it gave.
      expect(queries.slice(8)).toEqual([
        { index, attribute, key: keyOf(3), first: (crowded[3] as Pet).id + 1, last: newestId, limit: 4 },
      ]);
    },
  );
});

describe('the settle time', () => {
  // Left to its default (LISTING_SETTLE_MS, 800 ms): `last` is the newest id a page may show at T2 + 800 ms.
  const readsAt = (nowMs: number) => {
    const { client, take } = recordingClient();
    return { reads: new DynamoDbPetReads(client, db.tableName, { now: () => nowMs, firstPageCache: false }), take };
  };

  it('shows an id drawn the settle time (800 ms) ago, reading each shard up to it', async () => {
    const { reads, take } = readsAt(T2 + LISTING_SETTLE_MS);
    expect(await reads.list({ afterId: last.id - 1, limit: 5, status: undefined })).toEqual({
      pets: [last],
      hasMore: false,
      newestId: last.id,
    });
    expect(
      take()
        .map(described)
        .map(({ first, last: upTo }) => [first, upTo]),
    ).toEqual(Array.from({ length: 8 }, () => [last.id, last.id]));
  });

  it('sends no query for a page that starts at or past the newest id it may show', async () => {
    const { reads, take } = readsAt(T2 + LISTING_SETTLE_MS);
    for (const afterId of [last.id, last.id + 1]) {
      for (const status of [undefined, 'sold'] as const) {
        expect(await reads.list({ afterId, limit: 5, status })).toEqual({
          pets: [],
          hasMore: false,
          newestId: last.id,
        });
      }
    }
    // A millisecond earlier, `last` is not yet shown: every id above the cursor is too new, so no shard is asked.
    const early = readsAt(T2 + LISTING_SETTLE_MS - 1);
    expect(await early.reads.list({ afterId: last.id - 1, limit: 5, status: undefined })).toEqual({
      pets: [],
      hasMore: false,
      newestId: lastIdDrawnBy(T2 - 1),
    });
    expect([...take(), ...early.take()]).toEqual([]);
    // But a page after a cursor whose page could show `last` (an instance whose clock was ahead) shows it, whatever this clock says.
    expect(await early.reads.list({ afterId: last.id - 1, limit: 5, status: undefined, newestId: last.id })).toEqual({
      pets: [last],
      hasMore: false,
      newestId: last.id,
    });
  });
});

describe("a request's deadline", () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(db.endpoint);
  });
  afterAll(async () => {
    await proxy.close();
  });

  /** How a call ends, if it ends within 2 s: the deadline is 0.1 s away; a call that ignores it waits on the proxy far longer. */
  const within = (call: Promise<unknown>) =>
    Promise.race([
      call.then(
        () => 'answered',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 2 s'), 2_000)),
    ]);

  it.each([
    [
      'GetItem',
      'getPet',
      (reads: DynamoDbPetReads, deadline: TimedCallDeadline) => reads.get((dozen[0] as Pet).id, deadline),
    ],
    [
      'Query',
      'a page',
      (reads: DynamoDbPetReads, deadline: TimedCallDeadline) =>
        reads.list({ afterId: 0, limit: 5, status: undefined }, deadline),
    ],
  ] as const)(
    'gives up %s (%s) on a DynamoDB that never answers, when the deadline passes',
    async (operation, _, call) => {
      proxy.inject('hang', [operation]);
      const { client } = recordingClient(proxy.endpoint);
      const reads = new DynamoDbPetReads(client, db.tableName, {
        now: () => T0 + 1_000,
        listingSettleMs: 0,
        firstPageCache: false,
      });
      const deadline = new TimedCallDeadline(Date.now() + 100);
      try {
        expect(await within(call(reads, deadline))).toMatchObject({ name: 'AbortError' });
      } finally {
        deadline.clear();
        proxy.clear();
      }
    },
  );
});

describe('one layout: what a stage that skipped its last upgrade step still holds of the former one is never read', () => {
  const tableName = `pet-reads-${randomUUID()}`;
  const L0 = Date.UTC(2027, 0, 1);
  const pet = (ms: number, bits: number, name: string, status: PetStatus): Pet => ({
    id: idAt(L0 + ms, bits),
    name,
    categoryId: 4,
    status,
  });
  // A pet of the former layout (under `PET`, its status as `status`) whose copy was never made, and
  // one whose copy is in its shard (shard 7, the last), as `npm run pets-upgrade -- delete-former` finds them.
  const formerOnly = pet(1, 1, 'former only', 'available');
  const sharded = pet(2, 7, 'sharded', 'available');
  const formerItem = ({ id, name, categoryId, status }: Pet): Item => ({
    pk: { S: 'PET' },
    sk: { S: String(id).padStart(16, '0') },
    id: { N: String(id) },
    name: { S: name },
    categoryId: { N: String(categoryId) },
    status: { S: status },
    createdAt: { S: new Date(L0).toISOString() },
  });

  beforeAll(async () => {
    await db.client.send(new CreateTableCommand(createTableInput(tableName)));
    await waitUntilTableExists({ client: db.client, maxWaitTime: 60 }, { TableName: tableName });
    await Promise.all([
      put(tableName, formerItem(formerOnly)),
      put(tableName, formerItem(sharded)),
      put(tableName, petItem(sharded, L0, 'nonce')),
    ]);
  });
  afterAll(async () => {
    await db.client.send(new DeleteTableCommand({ TableName: tableName }));
  });

  const readsOf = () => {
    const { client, take } = recordingClient();
    return {
      reads: new DynamoDbPetReads(client, tableName, {
        now: () => L0 + 1_000,
        listingSettleMs: 0,
        firstPageCache: false,
      }),
      take,
    };
  };

  it("getPet asks the pet's shard alone, once", async () => {
    const { reads, take } = readsOf();
    const partitionsAsked = () =>
      take().map(({ command, input }) => `${command} ${((input.Key as Item).pk as { S: string }).S}`);
    expect(await reads.get(formerOnly.id)).toBeUndefined();
    expect(partitionsAsked()).toEqual(['GetItem PET#1']);
    expect(await reads.get(sharded.id)).toEqual(sharded);
    expect(partitionsAsked()).toEqual(['GetItem PET#7']);
  });

  it('a page reads the 8 shards (of the table, the listing index or the status index), never `PET` or a former index', async () => {
    const { reads, take } = readsOf();
    const newestId = lastIdDrawnBy(L0 + 1_000);
    // Eight sources: each asked for ceil(2 × 11 / 8) + 2 = 5.
    const shards = (index: string, attribute: string, key: (shard: number) => string) =>
      byKey(
        Array.from({ length: 8 }, (_, shard) => ({
          index,
          attribute,
          key: key(shard),
          first: 1,
          last: newestId,
          limit: 5,
        })),
      );
    const page = { pets: [sharded], hasMore: false, newestId };
    expect(await reads.list({ afterId: 0, limit: 10, status: undefined })).toEqual(page);
    expect(byKey(take().map(described))).toEqual(shards('table', 'pk', (shard) => `PET#${shard}`));
    expect(await reads.list({ afterId: 0, limit: 10, status: undefined })).toEqual(page);
    expect(byKey(take().map(described))).toEqual(shards(LIST_INDEX, 'listShard', (shard) => `pets#${shard}`));
    expect(await reads.list({ afterId: 0, limit: 10, status: 'available' })).toEqual(page);
    expect(byKey(take().map(described))).toEqual(shards(STATUS_INDEX, 'statusShard', (shard) => `available#${shard}`));
    expect(await reads.list({ afterId: 0, limit: 10, status: 'available' })).toEqual(page);
    expect(byKey(take().map(described))).toEqual(
      shards(STATUS_INDEX_AGAIN, 'statusShard', (shard) => `available#${shard}`),
    );
  });
});
