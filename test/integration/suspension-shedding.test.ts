import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../shared/clock';
import { expectErrorShape, startTestApi, type TestApi } from '../support/api';
import { testDatabase } from '../support/database';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * Suspension sheds load: once a container knows a key is suspended (and until when), its requests
 * are answered 429 without any DynamoDB request: no count, no id taken, no read.
 */
const db = testDatabase();
let proxy: FaultProxy;
let api: TestApi;
let nowMs = Date.UTC(2026, 10, 23, 10, 0, 5);
let restoreClock: () => void;

beforeAll(async () => {
  proxy = await startFaultProxy(db.endpoint);
  // Set before the handler modules are first imported: they read it once per container.
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  restoreClock = setClock(() => nowMs);
  api = await startTestApi();
});

afterAll(async () => {
  restoreClock();
  await api.close();
  await proxy.close();
});

const totalSeen = () => [...proxy.seen.values()].reduce((sum, count) => sum + count, 0);
const petCount = async () => (await db.storedPets()).length;

describe('a suspended key', () => {
  it('is answered 429 key_suspended without a single DynamoDB request until the suspension ends', async () => {
    const key = 'local-free-key';
    for (let i = 0; i < 60; i += 1) expect((await api.request('GET', '/pets?limit=1', { key })).status).toBe(200);
    const codes: string[] = [(await api.request('GET', '/pets?limit=1', { key })).body.code]; // the first refusal
    nowMs += 1_000; // its Retry-After ignored: from now on refusals count
    for (let i = 0; i < 175; i += 1) codes.push((await api.request('GET', '/pets?limit=1', { key })).body.code);
    expect(codes.slice(0, 175)).toEqual(Array(175).fill('rate_limited'));
    expect(codes.at(-1)).toBe('key_suspended');

    // Within the gateway's 30 s cache of the authorizer's answer (so the key is not looked up again).
    nowMs += 20_000;
    const before = totalSeen();
    const pets = await petCount();
    const answers = [
      await api.request('GET', '/pets?limit=1', { key }),
      await api.request('POST', '/pets', { key, body: { name: 'Shed', categoryId: 1 } }),
      await api.request('GET', '/pets/116000000000000', { key }),
    ];
    for (const answer of answers) expectErrorShape(answer, 429, 'key_suspended');
    expect(answers.map((answer) => answer.headers.get('retry-after'))).toEqual(['880', '880', '880']);
    expect(totalSeen() - before).toBe(0);
    expect(await petCount()).toBe(pets);

    nowMs += 15 * 60_000;
    expect((await api.request('GET', '/pets?limit=1', { key })).status).toBe(200);
  });
});
