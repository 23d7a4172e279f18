import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { esbuildOptionsFor } from '../../infra/bundling';
import { FUNCTION_NAMES, FUNCTIONS, type FunctionDeclaration } from '../../functions/table';
import { setClock } from '../../shared/clock';
import { CursorCodec } from '../../shared/pets/cursor';
import { KEYS_MAX_AGE_MS, MIN_REREAD_INTERVAL_MS } from '../../shared/pets/cursor-secrets';
import { expectErrorShape, startTestApi, type ApiResponse, type TestApi } from '../support/api';
import { randomSecret, startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager';

/**
 * The cursor keys as in AWS: listPets reads them from Secrets Manager (here a stand-in on
 * loopback that the real SDK client talks to, rotated as `put-secret-value` rotates), through the
 * local server. Time is moved by the service's clock, never slept.
 */
let fake: FakeSecretsManager;
let api: TestApi;
let nowMs = Date.now();
let restoreClock: () => void;
/** The pets' ids, ascending: the order of the listing. */
const walked: number[] = [];
const advance = (ms: number) => {
  nowMs += ms;
};

beforeAll(async () => {
  fake = await startFakeSecretsManager();
  // Read by the handler modules when first imported (by startTestApi): set first. The ARN wins over CURSOR_SECRET.
  process.env.CURSOR_SECRET_ARN = fake.secretArn;
  process.env.SECRETS_MANAGER_ENDPOINT = fake.endpoint;
  restoreClock = setClock(() => nowMs);
  api = await startTestApi();
  for (let i = 1; i <= 8; i += 1) {
    const created = await api.request('POST', '/pets', { body: { name: `Walked ${i}`, categoryId: 1 } });
    expect(created.status).toBe(201);
    walked.push(created.body.id);
  }
  // Made within one millisecond of the test's clock: their ids are in either order (decisions.md); listings go by id.
  walked.sort((a, b) => a - b);
});

afterAll(async () => {
  restoreClock();
  delete process.env.CURSOR_SECRET_ARN;
  delete process.env.SECRETS_MANAGER_ENDPOINT;
  await api?.close();
  await fake?.close();
});

const cursorOf = (response: ApiResponse): string => {
  const link = response.headers.get('link');
  expect(link).not.toBeNull();
  return new URL(/^<([^>]+)>/.exec(link as string)?.[1] as string).searchParams.get('cursor') as string;
};
const page = (cursor?: string) => api.request('GET', `/pets?limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`);
const idsOf = (response: ApiResponse) => (response.body as { id: number }[]).map((pet) => pet.id);
/** Whether this key signed the cursor (the codec of that key alone reads it as valid). */
const signedWith = (key: string, cursor: string) => new CursorCodec(key).read(cursor).kind === 'valid';
/** Until the keys read again in the background are in use: a new page's cursor is signed with the current value. */
const settled = () => vi.waitFor(async () => expect(signedWith(fake.current, cursorOf(await page()))).toBe(true));

describe('the cursor secret in Secrets Manager', () => {
  it('signs with the current value, read from Secrets Manager (AWSCURRENT and AWSPREVIOUS, once)', async () => {
    const first = await page();
    expect(first.status).toBe(200);
    expect(signedWith(fake.current, cursorOf(first))).toBe(true);
    expect(signedWith('test-cursor-secret', cursorOf(first))).toBe(false); // CURSOR_SECRET is set, but the ARN wins
    expect([...fake.calls].sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
    // The keys are kept: the next pages read nothing.
    expect((await page(cursorOf(first))).status).toBe(200);
    expect(fake.calls).toHaveLength(2);
  });

  it('accepts cursors signed before a rotation after it, and signs with the new value once the keys are read again (their maximum age)', async () => {
    const first = await page();
    const before = fake.current;
    const signedBefore = cursorOf(first);
    const after = fake.rotate();
    const calls = fake.calls.length;

    advance(KEYS_MAX_AGE_MS);
    // Past their age, the keys serve this request while they are read again in the background.
    const second = await page(signedBefore);
    expect(second.status).toBe(200);
    expect(idsOf(second)).toEqual(walked.slice(2, 4));
    await vi.waitFor(() => expect(fake.calls.length - calls).toBe(2)); // read again, for their age
    await settled();
    const signedAfter = cursorOf(await page(signedBefore));
    expect(signedWith(after, signedAfter)).toBe(true);
    expect(signedWith(before, signedAfter)).toBe(false);
    expect(idsOf(await page(signedAfter))).toEqual(walked.slice(4, 6));
    // The cursor from before the rotation is still good (the previous value), again and again.
    expect(idsOf(await page(signedBefore))).toEqual(walked.slice(2, 4));
  });

  it('reads the keys at once for a cursor signed with a value it does not know yet, even right after it read them (a rotation since)', async () => {
    // The keys were read for their age a moment ago (the test before); another instance has read the new value since.
    const rotated = fake.rotate();
    const calls = fake.calls.length;
    const signedElsewhere = new CursorCodec(rotated).encode({ afterId: walked[1] as number, status: undefined });
    const response = await page(signedElsewhere);
    expect(response.status).toBe(200);
    expect(idsOf(response)).toEqual(walked.slice(2, 4));
    expect(fake.calls.length - calls).toBe(2);
    expect(signedWith(rotated, cursorOf(response))).toBe(true);
  });

  it('refuses a cursor signed with an unknown secret (400), and forged cursors read Secrets Manager at most once a minute', async () => {
    advance(MIN_REREAD_INTERVAL_MS);
    const calls = fake.calls.length;
    for (let i = 0; i < 15; i += 1) {
      const forged = new CursorCodec(randomSecret()).encode({ afterId: walked[1] as number, status: undefined });
      const response = await page(forged);
      expectErrorShape(response, 400, 'invalid_request');
      expect(response.body.details).toEqual([
        { path: 'query.cursor', message: expect.stringContaining('start again without a cursor') },
      ]);
    }
    expect(fake.calls.length - calls).toBe(2); // one read (two stages) for the fifteen
    advance(MIN_REREAD_INTERVAL_MS);
    expectErrorShape(
      await page(new CursorCodec(randomSecret()).encode({ afterId: walked[1] as number, status: undefined })),
      400,
      'invalid_request',
    );
    expect(fake.calls.length - calls).toBe(4); // a minute later, one more
  });

  it('after two rotations, refuses a cursor from before both: 400, start again without a cursor', async () => {
    const oldCursor = cursorOf(await page());
    fake.rotate();
    const newest = fake.rotate();
    advance(KEYS_MAX_AGE_MS);
    // The first request past the keys' age starts reading them again; once read, the old cursor is unknown.
    const calls = fake.calls.length;
    expect((await page()).status).toBe(200);
    await vi.waitFor(() => expect(fake.calls.length - calls).toBe(2));
    await settled();
    const refused = await page(oldCursor);
    expectErrorShape(refused, 400, 'invalid_request');
    expect(refused.body.message).toContain('start again without a cursor');
    // Starting again works, signed with the newest value.
    const again = await page();
    expect(again.status).toBe(200);
    expect(signedWith(newest, cursorOf(again))).toBe(true);
  });
});

describe('createPet and getPet', () => {
  it('never call Secrets Manager, even when listPets would read the keys again', async () => {
    advance(KEYS_MAX_AGE_MS);
    const calls = fake.calls.length;
    for (let i = 0; i < 5; i += 1) {
      expect((await api.request('POST', '/pets', { body: { name: `Created ${i}`, categoryId: 2 } })).status).toBe(201);
      expect((await api.request('GET', `/pets/${walked[0]}`)).status).toBe(200);
    }
    expect(fake.calls.length).toBe(calls);
    // listPets does read them now (its keys are too old): the calls above would have been seen.
    expect((await page()).status).toBe(200);
    await vi.waitFor(() => expect(fake.calls.length).toBe(calls + 2));
  });

  it('do not even contain a Secrets Manager client: only a function that declares a secret (listPets) is bundled with one', async () => {
    const root = join(import.meta.dirname, '..', '..');
    for (const entry of FUNCTION_NAMES) {
      const declaration: FunctionDeclaration = FUNCTIONS[entry];
      const result = await build({
        ...esbuildOptionsFor(join(root, declaration.handler), join(root, 'bench', '.build', 'unused.mjs')),
        write: false,
        metafile: true,
      });
      const inputs = Object.keys(result.metafile?.inputs ?? {}).filter((input) =>
        input.includes('client-secrets-manager'),
      );
      expect([entry, inputs.length > 0]).toEqual([entry, (declaration.secrets ?? []).length > 0]);
      if (entry === 'listPets') expect(inputs.length).toBeGreaterThan(0);
    }
  }, 60_000);
});
