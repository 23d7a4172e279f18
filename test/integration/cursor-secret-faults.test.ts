import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../local/api-gateway-event';
import { CursorCodec } from '../../shared/pets/cursor';
import { listPetsEvent } from '../support/api';
import { testDatabase } from '../support/database';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager';

/**
 * listPets when Secrets Manager fails (a stand-in on loopback, the real SDK client): at a cold
 * start it answers 503 service_unavailable with Retry-After, within the request's deadline, never
 * a 500 or a hang; a page that needs no cursor answers 200 all the same; a warm container keeps
 * the keys it has. Each "container" is a fresh import of the handler module (its own keys, clients
 * and clock), invoked as Lambda invokes it.
 */
const PETS = 12;
/** The pets' ids, in the order they were made (ascending). */
const ids: number[] = [];
let fake: FakeSecretsManager;

beforeAll(async () => {
  fake = await startFakeSecretsManager();
  process.env.CURSOR_SECRET_ARN = fake.secretArn;
  process.env.SECRETS_MANAGER_ENDPOINT = fake.endpoint;
  const { client, tableName } = testDatabase();
  const { DynamoDbPetRepository } = await import('../../shared/pets/repository');
  const pets = new DynamoDbPetRepository(client, tableName);
  for (let i = 0; i < PETS; i += 1)
    ids.push((await pets.create({ name: `Fault ${i}`, categoryId: 1, status: 'available' })).id);
});
afterEach(() => fake.heal());
afterAll(async () => {
  delete process.env.CURSOR_SECRET_ARN;
  delete process.env.SECRETS_MANAGER_ENDPOINT;
  await fake.close();
});

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A new container: the handler module imported afresh, on a clock of its own that the test moves. */
async function coldContainer(): Promise<{ handler: Handler; advance: (ms: number) => void }> {
  vi.resetModules();
  const { setClock } = await import('../../shared/clock');
  let nowMs = Date.now();
  setClock(() => nowMs);
  const { handler } = await import('../../functions/listPets/handler');
  return { handler: handler as unknown as Handler, advance: (ms) => (nowMs += ms) };
}

const listEvent = (query: Record<string, string>) => listPetsEvent(query, 'cursor-secret-faults');

/** A page with more after it: its answer needs a signed cursor. */
const NEEDS_CURSOR = { limit: '2' };
/** The whole (last) page: no cursor in, none out. */
const NEEDS_NONE = { limit: '100' };
const cursorFrom = (afterId: number) => new CursorCodec(fake.current).encode({ afterId, status: undefined });

function expectUnavailable(response: APIGatewayProxyResult): void {
  expect(response.statusCode).toBe(503);
  expect(JSON.parse(response.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
  expect(response.headers?.['Retry-After']).toBe('1');
}

describe('at a cold start, when Secrets Manager fails', () => {
  it.each(['internal-error', 'throttle'] as const)(
    "answers 503 with Retry-After when it answers %s (after the SDK's two attempts), and 200 once it is back",
    async (fault) => {
      const { handler, advance } = await coldContainer();
      fake.fail(fault);
      const calls = fake.calls.length;
      expectUnavailable(await handler(listEvent(NEEDS_CURSOR), lambdaContext('listPets', 10_000)));
      expect(fake.calls.length - calls).toBe(4); // two stages, two attempts each
      // A cursor cannot be checked either; nor does it read again at once (a second's pause after a failed read).
      expectUnavailable(
        await handler(
          listEvent({ ...NEEDS_CURSOR, cursor: cursorFrom(ids[1] as number) }),
          lambdaContext('listPets', 10_000),
        ),
      );
      expect(fake.calls.length - calls).toBe(4);

      fake.heal();
      advance(1_000);
      const response = await handler(
        listEvent({ ...NEEDS_CURSOR, cursor: cursorFrom(ids[1] as number) }),
        lambdaContext('listPets', 10_000),
      );
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body).map((pet: { id: number }) => pet.id)).toEqual(ids.slice(2, 4));
      expect(response.headers?.Link).toMatch(/cursor=/);
    },
  );

  it('answers a page that needs no cursor with 200 all the same', async () => {
    const { handler } = await coldContainer();
    fake.fail('internal-error');
    const response = await handler(listEvent(NEEDS_NONE), lambdaContext('listPets', 10_000));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toHaveLength(PETS);
    expect(response.headers?.Link).toBeUndefined();
  });

  it("answers 503 within the request's deadline when Secrets Manager never answers, and 200 at once for a page that needs no cursor", async () => {
    const { handler } = await coldContainer();
    fake.fail('hang');
    // A Lambda with 1.5 s left: every call is given up 0.5 s before its timeout.
    let started = Date.now();
    expectUnavailable(await handler(listEvent(NEEDS_CURSOR), lambdaContext('listPets', 1_500)));
    expect(Date.now() - started).toBeLessThan(1_500);
    started = Date.now();
    expectUnavailable(
      await handler(
        listEvent({ ...NEEDS_CURSOR, cursor: cursorFrom(ids[1] as number) }),
        lambdaContext('listPets', 1_500),
      ),
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    started = Date.now();
    const response = await handler(listEvent(NEEDS_NONE), lambdaContext('listPets', 1_500));
    expect(response.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("answers 503 within the SDK's bounds (two attempts of a second) when Secrets Manager never answers and the function has time", async () => {
    const { handler } = await coldContainer();
    fake.fail('hang');
    const started = Date.now();
    expectUnavailable(await handler(listEvent(NEEDS_CURSOR), lambdaContext('listPets', 10_000)));
    expect(Date.now() - started).toBeLessThan(4_500);
  }, 20_000);
});

describe('in a warm container, when Secrets Manager fails', () => {
  it('keeps the keys it has, without waiting for Secrets Manager: walks go on, and it tries again at most once a minute', async () => {
    const { handler, advance } = await coldContainer();
    const first = await handler(listEvent(NEEDS_CURSOR), lambdaContext('listPets', 10_000));
    expect(first.statusCode).toBe(200);
    const cursor = new URL(/^<([^>]+)>/.exec(first.headers?.Link as string)?.[1] as string).searchParams.get(
      'cursor',
    ) as string;

    fake.fail('internal-error');
    advance(5 * 60_000); // the keys are old: it reads them again, and that fails
    const calls = fake.calls.length;
    const next = await handler(listEvent({ ...NEEDS_CURSOR, cursor }), lambdaContext('listPets', 10_000));
    expect(next.statusCode).toBe(200);
    expect(JSON.parse(next.body).map((pet: { id: number }) => pet.id)).toEqual(ids.slice(2, 4));
    // Read again in the background (two stages, two attempts each), and failed.
    await vi.waitFor(() => expect(fake.calls.length - calls).toBe(4));
    for (let i = 0; i < 5; i += 1)
      expect(
        (await handler(listEvent({ ...NEEDS_CURSOR, cursor }), lambdaContext('listPets', 10_000))).statusCode,
      ).toBe(200);
    expect(fake.calls.length - calls).toBe(4);
    advance(60_000);
    expect((await handler(listEvent({ ...NEEDS_CURSOR, cursor }), lambdaContext('listPets', 10_000))).statusCode).toBe(
      200,
    );
    await vi.waitFor(() => expect(fake.calls.length - calls).toBe(8));
  });
});
