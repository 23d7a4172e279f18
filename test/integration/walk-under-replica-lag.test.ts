import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../shared/dynamodb/client';
import { drawnAt, LISTING_SETTLE_MS } from '../../shared/pets/pet-ids';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import type { Pet, PetStatus } from '../../shared/pets/schema';
import { testDatabase } from '../support/database';
import { startPartitionModel, type PartitionModel } from '../support/partition-model';

/**
 * Page walks while pets are created, with DynamoDB's eventual consistency: the repository reads
 * through the partition model with replica lag (test/support/partition-model.ts), where a pet's
 * item stays out of the listing's eventually consistent queries for up to REPLICA_LAG_MS after its
 * write, and lists with the real settle time (LISTING_SETTLE_MS: no id drawn less than that ago).
 * The model's factor is 1 (DynamoDB's own per-partition rates): nothing here comes near them.
 */
const REPLICA_LAG_MS = 300;
const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

const db = testDatabase();
let model: PartitionModel;
let repository: DynamoDbPetRepository;

/** Every pet created in this file, with when its create resolved (Date.now, the service's clock). */
const made: { pet: Pet; resolvedAt: number }[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function create(name: string, status: PetStatus): Promise<void> {
  const pet = await repository.create({ name, categoryId: 1, status });
  made.push({ pet, resolvedAt: Date.now() });
}

beforeAll(async () => {
  model = await startPartitionModel(db.endpoint, { factor: 1, replicaLagMs: REPLICA_LAG_MS });
  repository = new DynamoDbPetRepository(
    createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: model.endpoint }),
    db.tableName,
    { listingSettleMs: LISTING_SETTLE_MS },
  );
  // Pets that settled before the first walk: each walk must see them.
  await Promise.all(
    Array.from({ length: 16 }, (_, n) => create(`settled ${n}`, STATUSES[n % STATUSES.length] as PetStatus)),
  );
  await sleep(LISTING_SETTLE_MS + 50);
});
afterAll(() => model.close());

interface Walk {
  readonly seen: Pet[];
  /** When the last page was asked for. */
  readonly lastAskedAt: number;
}

/**
 * Pages from the start with cursors (afterId = the previous page's last id) to the end; then, until
 * `tailMs` after it began, asks again from where it ended every `pauseMs` (a client following new pets).
 */
async function walk(status: PetStatus | undefined, limit: number, pauseMs: number, tailMs: number): Promise<Walk> {
  const began = Date.now();
  const seen: Pet[] = [];
  let afterId = 0;
  let lastAskedAt = began;
  for (;;) {
    lastAskedAt = Date.now();
    const page = await repository.list({ afterId, limit, status });
    expect(page.pets.length).toBeLessThanOrEqual(limit);
    seen.push(...page.pets);
    afterId = page.pets.at(-1)?.id ?? afterId;
    if (!page.hasMore && Date.now() >= began + tailMs) return { seen, lastAskedAt };
    await sleep(pauseMs);
  }
}

describe('a page walk while pets are created, under replica lag', () => {
  it('repeats no pet, goes in ascending id, and sees every pet that settled before it began (and every one it could have seen settled by its last page)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          // When each create starts, from the start of the run; the walk starts walkAfterMs in, and
          // follows new pets until tailMs after it began (long enough, mostly, for the settle time
          // to pass over the pets created meanwhile).
          creates: fc.array(fc.record({ at: fc.integer({ min: 0, max: 500 }), status: fc.constantFrom(...STATUSES) }), {
            minLength: 1,
            maxLength: 12,
          }),
          walkAfterMs: fc.integer({ min: 0, max: 400 }),
          status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
          limit: fc.integer({ min: 2, max: 9 }),
          pauseMs: fc.integer({ min: 0, max: 25 }),
          tailMs: fc.integer({ min: 600, max: 1_400 }),
        }),
        async ({ creates, walkAfterMs, status, limit, pauseMs, tailMs }) => {
          run += 1;
          const creating = Promise.all(
            creates.map(({ at, status: petStatus }, n) =>
              sleep(at).then(() => create(`run ${run} pet ${n}`, petStatus)),
            ),
          );
          await sleep(walkAfterMs);
          const began = Date.now();
          const settledBefore = made
            .filter(({ resolvedAt }) => resolvedAt <= began - LISTING_SETTLE_MS)
            .map(({ pet }) => pet);
          const { seen, lastAskedAt } = await walk(status, limit, pauseMs, tailMs);
          await creating;

          const ids = seen.map((pet) => pet.id);
          for (let n = 1; n < ids.length; n += 1) expect(ids[n] as number).toBeGreaterThan(ids[n - 1] as number);
          const byId = new Map(made.map(({ pet }) => [pet.id, pet]));
          for (const pet of seen) {
            expect(pet).toEqual(byId.get(pet.id));
            if (status !== undefined) expect(pet.status).toBe(status);
          }
          const wanted = (pet: Pet) => status === undefined || pet.status === status;
          const seenIds = new Set(ids);
          expect(settledBefore.filter(wanted).filter((pet) => !seenIds.has(pet.id))).toEqual([]);
          // Any page asked at least the settle time after a pet's id was drawn covers it; the model
          // shows the pet by then when its create resolved within the settle time less the lag.
          const coverable = made.filter(
            ({ pet, resolvedAt }) =>
              drawnAt(pet.id) <= lastAskedAt - LISTING_SETTLE_MS &&
              resolvedAt <= drawnAt(pet.id) + LISTING_SETTLE_MS - REPLICA_LAG_MS,
          );
          expect(
            coverable
              .map(({ pet }) => pet)
              .filter(wanted)
              .filter((pet) => !seenIds.has(pet.id)),
          ).toEqual([]);
        },
      ),
      // Each run takes real time and adds pets to the table: no shrinking (a rerun meets another
      // table); the seed in the failure report replays the parameters.
      { numRuns: 5, endOnFailure: true },
    );
  });
});
