import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventOf } from '../../bench/children/events.mjs';
import { mainCaseOf } from '../../bench/cases';
import { lambdaContext } from '../../local/api-gateway-event';
import { FUNCTIONS, OPERATION_IDS } from '../../functions/table';
import { drawnAt } from '../../shared/pets/pet-ids';
import { authorizerContextOf } from '../support/api';
import { testDatabase } from '../support/database';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * The fault suite: each fault DynamoDB can show, through the fault proxy, against the deployed
 * handler modules invoked as Lambda invokes them, with a 3 s function timeout (so the request's
 * deadline is 2.5 s): the status the client gets, how long it takes (asserted against the deadline,
 * never by sleeping), and the table afterwards (no pet without a 201 or an ambiguous 503, nothing
 * half-written, no id handed out twice).
 */
const db = testDatabase();
const FUNCTION_TIMEOUT_MS = 3_000;
let proxy: FaultProxy;
type Handler = (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;
let createPet: Handler;
let listPets: Handler;

beforeAll(async () => {
  proxy = await startFaultProxy(db.endpoint);
  // Set before the handler modules are first imported: they read it once per container.
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  createPet = (await import('../../functions/createPet/handler')).handler as unknown as Handler;
  listPets = (await import('../../functions/listPets/handler')).handler as unknown as Handler;
});
afterEach(() => proxy.clear());
afterAll(() => proxy.close());

let sequence = 0;
function event(method: 'GET' | 'POST', body?: object, idempotencyKey?: string): APIGatewayProxyEvent {
  sequence += 1;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
  };
  return {
    httpMethod: method,
    path: '/pets',
    resource: '/pets',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      requestId: `fault-${sequence}`,
      domainName: 'localhost',
      path: '/v1/pets',
      identity: { sourceIp: '127.0.0.1' },
      authorizer: authorizerContextOf('local-enterprise-key'),
    },
  } as unknown as APIGatewayProxyEvent;
}

async function timed(
  handler: Handler,
  request: APIGatewayProxyEvent,
): Promise<{ status: number; body: any; ms: number; retryAfter: unknown }> {
  const started = Date.now();
  const response = await handler(request, lambdaContext('fault-suite', FUNCTION_TIMEOUT_MS));
  return {
    status: response.statusCode,
    body: JSON.parse(response.body),
    ms: Date.now() - started,
    retryAfter: response.headers?.['Retry-After'],
  };
}

const named = async (name: string) => (await db.petsStored()).filter((pet) => pet.name === name);
const startedAt = Date.now();
/** The pets the idempotency records of the suite's key answer with. */
const recordPets = async () =>
  (await db.idempotencyRecordsOf(authorizerContextOf('local-enterprise-key').keyId as string)).map(
    (item) => item.pet as Record<string, unknown>,
  );

describe('the fault suite (creates and lists, function timeout 3 s)', () => {
  it.each([
    ['frozen on the write', 'hang', 'Frozen'],
    ['connection reset on every attempt', 'reset', 'Always reset'],
    ['throttled on the write', 'throttle', 'Throttled'],
  ] as const)('%s: an ambiguous 503 with Retry-After before the timeout, and no pet', async (_, fault, name) => {
    proxy.inject(fault, ['PutItem']);
    const answer = await timed(createPet, event('POST', { name, categoryId: 1 }));
    expect(answer).toMatchObject({ status: 503, body: { code: 'service_unavailable' }, retryAfter: '1' });
    expect(answer.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
    expect(await named(name)).toEqual([]);
  });

  it('reply lost after the write: 201 and exactly that one pet', async () => {
    proxy.inject('lose-reply-once', ['PutItem']);
    const answer = await timed(createPet, event('POST', { name: 'Lost', categoryId: 1 }));
    expect(answer.status).toBe(201);
    expect(await named('Lost')).toEqual([
      expect.objectContaining({ id: answer.body.id, name: 'Lost', categoryId: 1, status: 'available' }),
    ]);
  });

  it("connection reset before the write: the SDK's retry writes it, 201 and one pet", async () => {
    const putsBefore = proxy.seen.get('PutItem') ?? 0;
    proxy.inject('reset-once', ['PutItem']);
    const answer = await timed(createPet, event('POST', { name: 'Reset', categoryId: 1 }));
    expect(answer.status).toBe(201);
    expect(answer.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
    expect((proxy.seen.get('PutItem') ?? 0) - putsBefore).toBe(2);
    expect(await named('Reset')).toEqual([expect.objectContaining({ id: answer.body.id })]);
  });

  it('slow, just under the deadline: the answer comes, late but whole', async () => {
    proxy.inject('slow', ['Query'], 1_000);
    const answer = await timed(listPets, event('GET'));
    expect(answer.status).toBe(200);
    expect(answer.ms).toBeGreaterThanOrEqual(1_000);
    expect(answer.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
  });

  it('slow, just over the deadline: 503 at the deadline, not at the timeout', async () => {
    proxy.inject('slow', ['Query'], 3_500);
    const answer = await timed(listPets, event('GET'));
    expect(answer).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(answer.ms).toBeGreaterThanOrEqual(2_400);
    expect(answer.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
  });

  // With an Idempotency-Key the create is one transaction (pet and record): whatever the fault, the
  // client's retry with the same key either replays the pet that was written or creates it, never two.
  it.each([
    ['frozen on the write', 'creates', 'hang'],
    ['connection reset on every attempt', 'creates', 'reset'],
    ['throttled on the write', 'creates', 'throttle'],
    ['every reply of the write lost', 'replays', 'lose-reply'],
  ] as const)(
    'with an Idempotency-Key, %s: 503 before the timeout, then the retry %s the pet: one pet, with its record',
    async (_, outcome, fault) => {
      const name = `Keyed, ${fault}`;
      proxy.inject(fault, ['TransactWriteItems']);
      const answer = await timed(createPet, event('POST', { name, categoryId: 1 }, `fault-${fault}`));
      expect(answer).toMatchObject({ status: 503, body: { code: 'service_unavailable' }, retryAfter: '1' });
      expect(answer.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
      proxy.clear();
      const retried = await createPet(
        event('POST', { name, categoryId: 1 }, `fault-${fault}`),
        lambdaContext('fault-suite', FUNCTION_TIMEOUT_MS),
      );
      expect(retried.statusCode).toBe(201);
      expect(retried.headers?.['Idempotent-Replayed']).toBe(outcome === 'replays' ? 'true' : undefined);
      const pets = await named(name);
      expect(pets).toEqual([expect.objectContaining({ id: JSON.parse(retried.body).id })]);
      expect(await recordPets()).toContainEqual(expect.objectContaining({ id: pets[0]?.id, name }));
    },
  );

  it('leaves no half-written item, and never hands out an id twice', async () => {
    for (const item of await db.storedPets())
      expect(Object.keys(item).sort()).toEqual([
        'categoryId',
        'id',
        'listShard',
        'name',
        'nonce',
        'pk',
        'sk',
        'statusShard',
      ]);
    const pets = await db.petsStored();
    // Every idempotency record has its pet, and every pet created with a key has its record.
    const recorded = await recordPets();
    for (const pet of recorded) expect(pets).toContainEqual(pet);
    for (const pet of pets.filter((candidate) => String(candidate.name).startsWith('Keyed')))
      expect(recorded).toContainEqual(expect.objectContaining({ id: pet.id }));
    const ids = pets.map((pet) => pet.id as number);
    expect(new Set(ids).size).toBe(ids.length);
    // Each id drawn while this file ran (time-ordered ids: shared/pets/pet-ids.ts).
    for (const id of ids) expect(drawnAt(id)).toBeGreaterThanOrEqual(startedAt);
    for (const id of ids) expect(drawnAt(id)).toBeLessThanOrEqual(Date.now());
    // A create after all that gets a fresh id.
    const next = await timed(createPet, event('POST', { name: 'After', categoryId: 1 }));
    expect(next.status).toBe(201);
    expect(ids).not.toContain(next.body.id);
  });
});

describe('every declared operation, with DynamoDB answering nothing but the rate counters', () => {
  // Each operation's main bench case (bench/cases.ts): a request that makes its own DynamoDB calls.
  it.each(OPERATION_IDS)(
    '%s: 503 with Retry-After before the function timeout, so each of its own calls has the deadline',
    async (operationId) => {
      const handler = (
        (await import(new URL(`../../${FUNCTIONS[operationId].handler}`, import.meta.url).href)) as { handler: Handler }
      ).handler;
      proxy.hold(undefined, { except: (partition) => partition === 'RATE' });
      try {
        const started = Date.now();
        const response = await handler(
          eventOf(mainCaseOf(operationId).event, { key: 'local-enterprise-key' }) as APIGatewayProxyEvent,
          lambdaContext('fault-suite', FUNCTION_TIMEOUT_MS),
        );
        expect([
          operationId,
          response.statusCode,
          JSON.parse(response.body).code,
          response.headers?.['Retry-After'],
        ]).toEqual([operationId, 503, 'service_unavailable', '1']);
        expect(Date.now() - started).toBeLessThan(FUNCTION_TIMEOUT_MS);
      } finally {
        proxy.release({ stopHolding: true });
      }
    },
  );
});
