import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALL_CASES, entryOf } from '../../bench/cases';
import {
  endToEndRequests,
  END_TO_END,
  eventOf,
  invoke,
  lambdaContext,
  poolOf,
  withFill,
} from '../../bench/children/events.mjs';
import { BENCH_SETUPS, fillsFor, FRESH_PET, withPlaceholders } from '../../bench/setups';
import { DynamoDbPetWrites } from '../../shared/pets/pet-writes';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { testDatabase } from '../support/database';

/**
 * A bench case that reads or uses up data of its own names a setup (bench/setups.ts): before each
 * request a runner sends, the data is made through the service's own code, against the table the
 * case then runs on (here this file's table on DynamoDB Local, as the parity test's), and each
 * request gets its own. getPet's case reads a fresh pet so, and no pet is made by hand.
 */
const root = resolve(__dirname, '../..');
const KEY = 'local-enterprise-key';
const CASES_WITH_SETUP = ALL_CASES.filter((benchCase) => benchCase.setup !== undefined);
type Handler = (event: never, context: Context) => Promise<unknown>;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('bench cases with a setup', () => {
  it("getPet's case reads a pet its setup makes", () => {
    expect(CASES_WITH_SETUP.map((benchCase) => [benchCase.name, benchCase.setup])).toContainEqual([
      'getPet',
      'freshPet',
    ]);
  });

  it.each(CASES_WITH_SETUP.map((benchCase) => [benchCase.name, benchCase] as const))(
    '%s: each request gets data of its own, made through the repository, and answers with it',
    async (_, benchCase) => {
      const creates = vi.spyOn(DynamoDbPetWrites.prototype, 'create');
      const { client, tableName } = testDatabase();
      const fills = (await fillsFor(benchCase, { client, tableName }, 3)) ?? [];

      // One create of the repository per request; each request's data its own.
      expect(creates).toHaveBeenCalledTimes(3);
      expect(fills).toHaveLength(3);
      expect(new Set(fills.map((fill) => JSON.stringify(fill))).size).toBe(3);

      const handler = ((await import(entryOf(root, 'ours', benchCase.fn))) as { handler: Handler }).handler;
      const pets = new DynamoDbPetRepository(client, tableName);
      for (const fill of fills) {
        const { petId } = fill.pathParameters ?? {};
        // In the table as the repository stored it (its own code wrote it: no item written by hand).
        expect(await pets.get(Number(petId))).toEqual({ id: Number(petId), ...FRESH_PET });
        const response = await invoke(handler, eventOf(withFill(benchCase.event, fill), { key: KEY }), lambdaContext());
        expect(response.statusCode).toBe(benchCase.status);
        // A read answers the pet; a request that uses it up (a delete: 204) answers no body.
        if (response.statusCode !== 204) expect(JSON.parse(response.body)).toMatchObject({ id: Number(petId) });
        else expect(response.body).toBe('');
      }
    },
  );

  it.each(CASES_WITH_SETUP.map((benchCase) => [benchCase.name, benchCase] as const))(
    '%s: its own spec (the placeholder the overhead stub answers) names no data of any table: without its setup it would not answer %s',
    async (_, benchCase) => {
      const handler = ((await import(entryOf(root, 'ours', benchCase.fn))) as { handler: Handler }).handler;
      const response = await invoke(handler, eventOf(benchCase.event, { key: KEY }), lambdaContext());
      expect(response.statusCode).not.toBe(benchCase.status);
      expect(benchCase.event).toEqual(
        withFill(benchCase.event, BENCH_SETUPS[benchCase.setup as keyof typeof BENCH_SETUPS].placeholder),
      );
    },
  );
});

describe("the pool a child takes its requests' data from", () => {
  it('hands each fill out once, in order, and refuses to hand out more than were made', () => {
    const fills = [{ pathParameters: { petId: '1' } }, { pathParameters: { petId: '2' } }];
    const pool = poolOf(fills, 'getPet');
    expect([pool.take(), pool.take()]).toEqual(fills);
    expect(pool.taken).toBe(2);
    expect(() => pool.take()).toThrow("getPet: its setup made 2 requests' data, and a request more was sent");
  });

  it('the end-to-end run asks for one fill per request it sends, warm-ups included', () => {
    expect(endToEndRequests(300)).toBe(2 * (END_TO_END.warmUp + 300));
    // Whole blocks: 310 timed requests a side are 13 blocks of 25.
    expect(endToEndRequests(310)).toBe(2 * (END_TO_END.warmUp + 13 * END_TO_END.block));
  });

  it("fills a spec's path and query parameters over its own, and names the filled values in an answer", () => {
    const spec = {
      type: 'request',
      method: 'GET',
      resource: '/pets/{petId}',
      pathParameters: { petId: '1', other: 'x' },
      query: { limit: '2' },
    } as const;
    expect(withFill(spec, { pathParameters: { petId: '77' }, query: { status: 'sold' } })).toEqual({
      ...spec,
      pathParameters: { petId: '77', other: 'x' },
      query: { limit: '2', status: 'sold' },
    });
    expect(withFill(spec, undefined)).toBe(spec);
    const fill = { pathParameters: { petId: '1234567890123456' } };
    expect(
      withPlaceholders(
        { id: 1234567890123456, name: 'Bench pet', links: ['/v1/pets/1234567890123456'], other: 12 },
        fill,
      ),
    ).toEqual({ id: '{petId}', name: 'Bench pet', links: ['/v1/pets/{petId}'], other: 12 });
    expect(withPlaceholders({ id: 5 }, undefined)).toEqual({ id: 5 });
  });
});
