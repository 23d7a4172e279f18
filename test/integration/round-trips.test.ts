import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../shared/clock';
import { startTestApi, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * How many DynamoDB round trips a warm request waits for (the key is cached, the minute window
 * open): the proxy holds every request until released, so the requests a handler sends before
 * hearing back are exactly the ones it sends together.
 */
const db = testDatabase();
let proxy: FaultProxy;
let api: TestApi;
let restoreClock: () => void;
let firstId: number;

beforeAll(async () => {
  proxy = await startFaultProxy(db.endpoint);
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint; // before the handler modules are imported
  restoreClock = setClock(() => Date.UTC(2026, 10, 24, 12, 0, 30));
  api = await startTestApi();
  // Warm up: the key lookup is cached and this minute's counter window is open.
  const first = await api.request('POST', '/pets', { body: { name: 'First', categoryId: 1 } });
  expect(first.status).toBe(201);
  firstId = first.body.id;
});

afterAll(async () => {
  restoreClock();
  await api.close();
  await proxy.close();
});

/**
 * Sends a request with the proxy holding DynamoDB requests and checks it waits for exactly the
 * given round trips: each trip's requests must all be sent before any is answered (a handler
 * that sent them one after another would never get there, and the test would time out).
 */
async function expectRoundTrips(
  send: () => Promise<{ status: number }>,
  expectedStatus: number,
  trips: string[][],
): Promise<void> {
  proxy.hold();
  const response = send();
  for (const trip of trips) {
    expect([...(await proxy.held(trip.length))].sort()).toEqual(trip);
    proxy.release();
  }
  proxy.release({ stopHolding: true });
  expect((await response).status).toBe(expectedStatus);
  // Nothing was sent beyond the expected trips.
  expect(await Promise.race([proxy.held(1).then(() => 'more'), Promise.resolve('none')])).toBe('none');
}

describe('DynamoDB round trips of a warm request', () => {
  it("listPets: one, the count and the page read together: one query per shard (PET#0 to PET#7, or the status index's)", async () => {
    await expectRoundTrips(() => api.request('GET', '/pets?limit=5'), 200, [
      [...Array(8).fill('Query PET'), 'UpdateItem RATE'],
    ]);
    // The next page without a filter reads the listing index's shards: a second set of partitions.
    await expectRoundTrips(() => api.request('GET', '/pets?limit=5'), 200, [
      [...Array(8).fill('Query index petsById'), 'UpdateItem RATE'],
    ]);
    await expectRoundTrips(() => api.request('GET', '/pets?status=available'), 200, [
      [...Array(8).fill('Query index petsByStatus'), 'UpdateItem RATE'],
    ]);
  });

  it('getPet: one, the count and the read together', async () => {
    await expectRoundTrips(() => api.request('GET', `/pets/${firstId}`), 200, [['GetItem PET', 'UpdateItem RATE']]);
    await expectRoundTrips(() => api.request('GET', '/pets/999'), 404, [['GetItem PET', 'UpdateItem RATE']]);
  });

  it('createPet: two, the count, then the write with the id drawn when it is sent (no counter)', async () => {
    await expectRoundTrips(() => api.request('POST', '/pets', { body: { name: 'Second', categoryId: 1 } }), 201, [
      ['UpdateItem RATE'],
      ['PutItem PET'],
    ]);
  });

  it('createPet with an Idempotency-Key: two, the record read with the count, then one transaction', async () => {
    await expectRoundTrips(
      () =>
        api.request('POST', '/pets', {
          body: { name: 'Keyed', categoryId: 1 },
          headers: { 'Idempotency-Key': 'round-trips#1' },
        }),
      201,
      [['GetItem IDEMPOTENCY', 'UpdateItem RATE'], ['TransactWriteItems PET']],
    );
  });

  it('an invalid request: one, only the count', async () => {
    await expectRoundTrips(() => api.request('GET', '/pets?limit=0'), 400, [['UpdateItem RATE']]);
  });
});
