import { DeleteItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../shared/pets/cursor';
import {
  CLOCK_SKEW_MS,
  drawPetId,
  INDEX_LAG_MS,
  LISTING_SETTLE_MS,
  MIN_LISTING_SETTLE_MS,
  WALK_MARGIN_MS,
  YOUNG_ID_MS,
} from '../../shared/pets/pet-ids';
import { petItem } from '../../shared/pets/pet-items';
import { DynamoDbPetReads } from '../../shared/pets/pet-reads';
import type { Pet, PetStatus } from '../../shared/pets/schema';
import { listPets, type PageCursors } from '../../shared/pets/service';
import { testDatabase } from '../support/database';

/**
 * Walks and clients following new pets across function instances whose clocks differ, in virtual
 * time, through the real listing code (the service's listPets, its cursors, the reads' merge of
 * the shards) on DynamoDB Local. Each create draws its id by its instance's clock; its item lands
 * in the table when the create sends its last attempt (up to YOUNG_ID_MS after the id), and its
 * index entries (`statusShard`, `listShard`, which key the listing indexes) follow by a lag of
 * their own (up to INDEX_LAG_MS); each page goes to an instance with a clock of its own, up to
 * CLOCK_SKEW_MS from the others. The promises (decisions.md, "Next page"): a walk never repeats a
 * pet and never skips one created (answered) at least a second before it began; a client that
 * polls its last cursor sees every pet; a Link never leads to an empty page that claims more.
 * Then the same worlds with a setting that breaks a bound, which break a promise.
 */
const db = testDatabase();
const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

interface Create {
  /** When the id is drawn (virtual ms from T0), and how far the creating instance's clock is ahead. */
  readonly at: number;
  readonly clock: number;
  /** After the id, when the write lands (the create answers then), and how much later its index entries. */
  readonly sendMs: number;
  readonly indexLagMs: number;
  readonly status: PetStatus;
}

interface Client {
  /** When it asks its first page (virtual ms), its filter and page size, and the pause between polls. */
  readonly at: number;
  readonly status: PetStatus | undefined;
  readonly limit: number;
  /** Ms before each page follows a Link. */
  readonly followMs: number;
  readonly pollMs: number;
  /** The clock (ahead of virtual time) of the instance each of its requests goes to, in turn. */
  readonly clocks: readonly number[];
}

interface World {
  readonly settleMs: number;
  /** Each instance keeps its busy first pages (shared/pets/first-page-cache.ts), as deployed. */
  readonly firstPageCache?: boolean;
  readonly creates: readonly Create[];
  readonly clients: readonly Client[];
}

interface ClientRecord {
  /** The pets of its first walk (pages from no cursor to the first page without a Link), and when it began. */
  readonly walk: Pet[];
  readonly walkBegan: number;
  /** Every pet any page gave it, polls included. */
  readonly seen: Set<number>;
  /** Pages asked with a cursor (a Link, followed or polled again) that held no pet. */
  emptyAfterLink: number;
}

interface Outcome {
  readonly pets: { readonly pet: Pet; readonly answeredAt: number }[];
  readonly clients: ClientRecord[];
}

/** Every event in virtual time, run in order: landings, then pages (a page at the same ms as a landing sees it). */
async function run(world: World): Promise<Outcome> {
  const cursors = new CursorCodec('walk-across-clocks');
  const pageCursors: PageCursors = {
    prepare: () => undefined,
    encode: (position) => Promise.resolve(cursors.encode(position)),
    decode: (cursor, status) => Promise.resolve(cursors.decode(cursor, status)),
  };
  let virtual = 0;
  // One instance per clock, each reading its listing sets in turn.
  const instances = new Map<number, DynamoDbPetReads>();
  const readsOn = (clock: number): DynamoDbPetReads => {
    if (!instances.has(clock))
      instances.set(
        clock,
        new DynamoDbPetReads(db.client, db.tableName, {
          now: () => T0 + virtual + clock,
          listingSettleMs: world.settleMs,
          firstPageCache: world.firstPageCache === true,
          foundPetCache: false,
        }),
      );
    return instances.get(clock) as DynamoDbPetReads;
  };
  const written: Record<string, AttributeValue>[] = [];
  const events: { at: number; order: number; act: () => Promise<void> }[] = [];
  const pets: Outcome['pets'] = [];
  let n = 0;
  for (const create of world.creates) {
    n += 1;
    const pet: Pet = {
      id: drawPetId(T0 + create.at + create.clock, () => n % 4096),
      name: `pet ${n}`,
      categoryId: 1,
      status: create.status,
    };
    const landsAt = create.at + create.sendMs;
    const { statusShard, listShard, ...tableItem } = petItem(pet, T0 + create.at + create.clock, `nonce-${n}`);
    pets.push({ pet, answeredAt: landsAt });
    written.push({ pk: tableItem.pk as AttributeValue, sk: tableItem.sk as AttributeValue });
    // In the table first (with `status`, which the reads take as statusShard's), in the indexes after their lag.
    events.push({
      at: landsAt,
      order: 0,
      act: async () =>
        void (await db.client.send(
          new PutItemCommand({ TableName: db.tableName, Item: { ...tableItem, status: { S: pet.status } } }),
        )),
    });
    events.push({
      at: landsAt + create.indexLagMs,
      order: 0,
      act: async () =>
        void (await db.client.send(
          new UpdateItemCommand({
            TableName: db.tableName,
            Key: { pk: tableItem.pk as never, sk: tableItem.sk as never },
            UpdateExpression: 'SET statusShard = :status, listShard = :list REMOVE #status',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': statusShard as never, ':list': listShard as never },
          }),
        )),
    });
  }
  const lastLanding = Math.max(...world.creates.map((create) => create.at + create.sendMs + create.indexLagMs));
  // Clients poll until every pet could have settled, and twice more.
  const pollUntil = lastLanding + world.settleMs + 2 * CLOCK_SKEW_MS;
  const records = world.clients.map((client) => {
    const record: ClientRecord = { walk: [], walkBegan: client.at, seen: new Set(), emptyAfterLink: 0 };
    let request = 0;
    let lastCursor: string | undefined;
    let walking = true;
    const page = async (cursor: string | undefined): Promise<void> => {
      const clock = client.clocks[request++ % client.clocks.length] as number;
      const listing = await listPets(
        { pets: readsOn(clock), cursors: pageCursors },
        { limit: client.limit, status: client.status, cursor },
      );
      // A Link's page always holds the pet that made it: followed at once or polled again later.
      if (cursor !== undefined && listing.pets.length === 0) record.emptyAfterLink += 1;
      for (const pet of listing.pets) record.seen.add(pet.id);
      if (walking) record.walk.push(...listing.pets);
      if (listing.nextCursor !== undefined) {
        lastCursor = listing.nextCursor;
        schedule(virtual + client.followMs, () => page(lastCursor));
        return;
      }
      walking = false;
      if (virtual < pollUntil) schedule(virtual + client.pollMs, () => page(lastCursor));
    };
    schedule(client.at, () => page(undefined));
    return record;
  });
  function schedule(at: number, act: () => Promise<void>) {
    events.push({ at, order: 1, act });
  }
  while (events.length > 0) {
    events.sort((a, b) => a.at - b.at || a.order - b.order);
    const next = events.shift() as (typeof events)[number];
    virtual = next.at;
    await next.act();
  }
  // The next world starts from an empty table.
  await Promise.all(written.map((key) => db.client.send(new DeleteItemCommand({ TableName: db.tableName, Key: key }))));
  return { pets, clients: records };
}

/** What the world broke: each promise's counterexamples. */
function broken({ pets, clients }: Outcome, world: World) {
  return clients.flatMap((record, c) => {
    const client = world.clients[c] as Client;
    const wanted = pets.filter(({ pet }) => client.status === undefined || pet.status === client.status);
    const ids = record.walk.map((pet) => pet.id);
    const problems: string[] = [];
    if (ids.some((id, i) => i > 0 && id <= (ids[i - 1] as number)))
      problems.push(`client ${c}: its walk repeats or goes back`);
    const walked = new Set(ids);
    for (const { pet, answeredAt } of wanted) {
      if (answeredAt <= record.walkBegan - WALK_MARGIN_MS && !walked.has(pet.id))
        problems.push(
          `client ${c}: its walk skipped ${pet.name}, answered ${record.walkBegan - answeredAt} ms before it began`,
        );
      if (!record.seen.has(pet.id)) problems.push(`client ${c}: polling never saw ${pet.name}`);
    }
    if (record.emptyAfterLink > 0) problems.push(`client ${c}: a Link led to an empty page`);
    return problems;
  });
}

const createArbitrary = fc.record({
  at: fc.integer({ min: 0, max: 2_000 }),
  clock: fc.integer({ min: 0, max: CLOCK_SKEW_MS }),
  sendMs: fc.integer({ min: 0, max: YOUNG_ID_MS - 1 }),
  indexLagMs: fc.integer({ min: 0, max: INDEX_LAG_MS }),
  status: fc.constantFrom(...STATUSES),
});
const clientArbitrary = fc.record({
  at: fc.integer({ min: 0, max: 3_000 }),
  status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 4 }),
  followMs: fc.integer({ min: 0, max: 150 }),
  pollMs: fc.integer({ min: 50, max: 700 }),
  clocks: fc.array(fc.integer({ min: 0, max: CLOCK_SKEW_MS }), { minLength: 1, maxLength: 4 }),
});

describe('a walk and a client following new pets, with clocks up to 200 ms apart and writes that land late', () => {
  it('the settle time is the bound: clocks apart, a write sent up to its last attempt, an index behind; and leaves a walk its second', () => {
    expect(MIN_LISTING_SETTLE_MS).toBe(CLOCK_SKEW_MS + YOUNG_ID_MS + INDEX_LAG_MS);
    expect(LISTING_SETTLE_MS).toBe(MIN_LISTING_SETTLE_MS);
    expect(LISTING_SETTLE_MS + CLOCK_SKEW_MS).toBe(WALK_MARGIN_MS);
  });

  it('holds every promise in any such world, with the deployed settle time and first-page cache', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(createArbitrary, { minLength: 1, maxLength: 14 }),
        fc.array(clientArbitrary, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (creates, clients, firstPageCache) => {
          const world = { settleMs: LISTING_SETTLE_MS, firstPageCache, creates, clients };
          expect(broken(await run(world), world)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  // The worlds at the bounds' edges, each as it is and with the setting past its bound.
  const late: World = {
    settleMs: LISTING_SETTLE_MS,
    creates: [
      // Drawn by a clock 200 ms behind the listing's, sent at its last attempt, its index entry at the lag allowed.
      { at: 0, clock: 0, sendMs: YOUNG_ID_MS - 1, indexLagMs: INDEX_LAG_MS, status: 'available' },
      // Two a moment later by a clock 200 ms ahead, in the index at once.
      { at: 1, clock: CLOCK_SKEW_MS, sendMs: 0, indexLagMs: 0, status: 'available' },
      { at: 2, clock: CLOCK_SKEW_MS, sendMs: 0, indexLagMs: 0, status: 'available' },
    ],
    // Pages by status (the indexes' sets) every 10 ms, on an instance whose clock is ahead.
    clients: [{ at: 0, status: 'available', limit: 1, followMs: 10, pollMs: 10, clocks: [CLOCK_SKEW_MS] }],
  };

  it('a pet drawn by a clock behind, sent at its last attempt and indexed late, is still seen; with the former settle time (500 ms) a client following new pets never sees it', async () => {
    expect(broken(await run(late), late)).toEqual([]);
    const former = { ...late, settleMs: 500 };
    expect(broken(await run(former), former)).toEqual(['client 0: polling never saw pet 1']);
    // The same with an index later than the lag allowed.
    const laggard = {
      ...late,
      creates: late.creates.map((create, n) => (n === 0 ? { ...create, indexLagMs: INDEX_LAG_MS + 300 } : create)),
    };
    expect(broken(await run(laggard), laggard)).toEqual(['client 0: polling never saw pet 1']);
  });

  const answeredBefore: World = {
    settleMs: LISTING_SETTLE_MS,
    // Answered at once, by a clock 200 ms ahead of the listing's, a second before the walk begins.
    creates: [{ at: 0, clock: CLOCK_SKEW_MS, sendMs: 0, indexLagMs: 0, status: 'pending' }],
    clients: [{ at: WALK_MARGIN_MS, status: undefined, limit: 5, followMs: 0, pollMs: 100, clocks: [0] }],
  };

  it('a walk shows a pet answered a second before it began by a clock 200 ms ahead; with a settle time above 800 ms it skips it', async () => {
    expect(broken(await run(answeredBefore), answeredBefore)).toEqual([]);
    const slower = { ...answeredBefore, settleMs: LISTING_SETTLE_MS + 1 };
    expect(broken(await run(slower), slower)).toEqual([
      'client 0: its walk skipped pet 1, answered 1000 ms before it began',
    ]);
  });

  it("a Link from an instance whose clock is ahead leads to a page on one 200 ms behind that still shows the pet that made it (the cursor carries its page's bound)", async () => {
    const world: World = {
      settleMs: LISTING_SETTLE_MS,
      creates: [
        { at: 0, clock: 0, sendMs: 0, indexLagMs: 0, status: 'sold' },
        { at: 100, clock: 0, sendMs: 0, indexLagMs: 0, status: 'sold' },
      ],
      // The first page (of one) at 100 + 800 + 150 by a clock 200 ahead: both pets settled, one shown and a Link; the next by a clock 200 behind that.
      clients: [
        {
          at: 100 + LISTING_SETTLE_MS - 50,
          status: 'sold',
          limit: 1,
          followMs: 0,
          pollMs: 5_000,
          clocks: [CLOCK_SKEW_MS, 0],
        },
      ],
    };
    const outcome = await run(world);
    expect(broken(outcome, world)).toEqual([]);
    expect(outcome.clients[0]?.walk.map((pet) => pet.name)).toEqual(['pet 1', 'pet 2']);
  });
});
