import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ALL_CASES,
  BENCH_FUNCTIONS,
  entryOf,
  type BenchFunction,
  type Implementation,
  type NamedCase,
} from '../../bench/cases';
import {
  eventOf,
  invoke,
  lambdaContext,
  REFUSED_ADDRESS,
  withFill,
  type SetupFill,
} from '../../bench/children/events.mjs';
import { fillsFor, withPlaceholders } from '../../bench/setups';
import { admitted, begin, error as baselineError, noContent as baselineNoContent } from '../../bench/baseline/common';
import { ServiceUnavailableError } from '../../shared/errors';
import { now, setClock } from '../../shared/clock';
import { deprecationHeaders, GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { noContent } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import { REQUEST_CHECKS } from '../../functions/getPet/request-checks.generated';
import { drawnAt } from '../../shared/pets/pet-ids';
import { petSortKey, shardOf, shardPartition } from '../../shared/pets/pet-items';
import { setLogSink } from '../../shared/log';
import { authorizerContextOf } from '../support/api';
import { testDatabase } from '../support/database';

/**
 * `npm run bench` compares our stack with the hand-written baseline of bench/baseline/; the
 * comparison only means something if both do the same work. Every function the bench runs (the
 * declared operations and the authorizer) has its twin there, and for every case of bench/cases.ts
 * both answer alike against the same table: the same status, headers, body and log line fields.
 */
const root = resolve(__dirname, '../..');
type Handler = (event: never, context: Context) => Promise<unknown>;
const HANDLERS = { ours: {}, baseline: {} } as Record<Implementation, Record<BenchFunction, Handler>>;
const KEY = 'local-pro-key';
/** Headers whose values do not depend on the count or the request: they must be equal. */
const SAME_VALUE = [
  'Content-Type',
  'X-RateLimit-Limit',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'Cache-Control',
  'WWW-Authenticate',
  'Link',
  'Deprecation',
  'Sunset',
];
/** Log line fields that must be equal (the request id, time and duration differ by nature). */
const SAME_LOG_FIELDS = [
  'level',
  'msg',
  'operation',
  'route',
  'status',
  'keyId',
  'plan',
  'code',
  'version',
  'Requests',
  'Status2xx',
  'Status4xx',
  'Status5xx',
  'RateLimited',
  'KeySuspended',
];

/** A case of bench/cases.ts, or one of this file's own, answered by `handlers` instead of the functions'. */
type ParityCase = NamedCase & { readonly handlers?: Readonly<Record<Implementation, Handler>> };

/**
 * A bodiless answer (204), which no operation gives yet: getPet's request, answered by our stack
 * with `noContent()` and by the baseline with its `noContent`, both with getPet's headers.
 */
const BODILESS_CASE: ParityCase = {
  ...(ALL_CASES.find((benchCase) => benchCase.name === 'getPet') as NamedCase),
  name: 'a bodiless answer (204)',
  status: 204,
  handlers: {
    ours: httpOperation({ ...REQUEST_CHECKS, deprecation: GET_PET_DEPRECATION, handle: async () => noContent() }),
    baseline: async (event: APIGatewayProxyEvent) => {
      const context = await begin(event, 'getPet', 'GET /v1/pets/{petId}');
      const decided = await admitted(context);
      return decided.refusal ?? baselineNoContent(context, decided.count, deprecationHeaders(GET_PET_DEPRECATION));
    },
  },
};

/**
 * A 503 (the datastore out of reach), which a bench case cannot cause: getPet's request, answered
 * by our stack from a thrown ServiceUnavailableError and by the baseline with its own 503. Its line
 * also counts the 5XX by version (the release gate's metric), on both sides.
 */
const UNAVAILABLE_CASE: ParityCase = {
  ...(ALL_CASES.find((benchCase) => benchCase.name === 'getPet') as NamedCase),
  name: 'a 503 answer',
  status: 503,
  handlers: {
    ours: httpOperation({
      ...REQUEST_CHECKS,
      deprecation: GET_PET_DEPRECATION,
      handle: async () => {
        throw new ServiceUnavailableError(new Error('out of reach'));
      },
    }),
    baseline: async (event: APIGatewayProxyEvent) => {
      const context = await begin(event, 'getPet', 'GET /v1/pets/{petId}');
      const decided = await admitted(context);
      return (
        decided.refusal ??
        baselineError(context, decided.count, {
          status: 503,
          code: 'service_unavailable',
          message: 'The service is temporarily unavailable.',
          headers: {
            'Retry-After': '1',
            ...deprecationHeaders(GET_PET_DEPRECATION),
          },
        })
      );
    },
  },
};

/** The JSON body; a bodiless answer's (204) as its text, which must be empty (checked with the answers). */
const bodyOf = (response: { statusCode: number; body: string }): unknown =>
  response.statusCode === 204 ? response.body : JSON.parse(response.body);

/** Runs `work` with the log lines both sides write (ours through the log sink, the baseline's on stdout) gathered in `lines`. */
async function withLines<T>(work: (lines: string[]) => Promise<T>): Promise<T> {
  const lines: string[] = [];
  const previousSink = setLogSink((line) => lines.push(line));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk).trimEnd());
    return true;
  });
  try {
    return await work(lines);
  } finally {
    write.mockRestore();
    setLogSink(previousSink);
  }
}

function answer(side: Implementation, { fn, event: spec, status, handlers }: ParityCase) {
  return withLines(async (lines) => {
    const event = eventOf(spec, { key: KEY });
    const response = await invoke(handlers?.[side] ?? HANDLERS[side][fn], event, lambdaContext());
    // One log line per request; a request the authorizer allows is logged by the function it goes on to.
    expect(lines).toHaveLength(fn === 'authorizer' && status === 200 ? 0 : 1);
    return {
      event,
      response,
      body: response.statusCode === 401 && fn === 'authorizer' ? {} : bodyOf(response),
      log: (lines[0] === undefined ? {} : JSON.parse(lines[0])) as Record<string, unknown>,
    };
  });
}

let restoreClock: () => void;
// Both sides read the service's clock: pinned mid-minute, both answers name the same window's reset.
beforeAll(() => {
  const midMinute = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  restoreClock = setClock(() => midMinute);
});
afterAll(() => restoreClock());

beforeAll(async () => {
  for (const side of ['ours', 'baseline'] as const) {
    for (const fn of BENCH_FUNCTIONS) {
      const entry = entryOf(root, side, fn);
      // A missing module fails its own test (every function ... has its baseline twin), not the others.
      if (existsSync(entry)) HANDLERS[side][fn] = ((await import(entry)) as { handler: Handler }).handler;
    }
  }
});

beforeAll(async () => {
  // More pets than a page, so that listPets answers with a Link to the next page.
  const { client, tableName } = testDatabase();
  const { DynamoDbPetRepository } = await import('../../shared/pets/repository');
  const pets = new DynamoDbPetRepository(client, tableName);
  for (let i = 0; i < 25; i += 1) await pets.create({ name: `Parity ${i}`, categoryId: 3, status: 'available' });
  // An address that has used up this minute's allowance of requests without a valid key.
  const { rateLimiter } = await import('../../shared/limits/limiter-instance');
  const { addressSubject } = await import('../../shared/auth/authorize');
  const { STANDARD_PLAN_LIMITS } = await import('../../shared/limits/plans');
  for (let i = 0; i < STANDARD_PLAN_LIMITS.free.perMinute; i += 1)
    await rateLimiter.check(addressSubject(REFUSED_ADDRESS), STANDARD_PLAN_LIMITS.free);
});

/**
 * A case with a setup (bench/setups.ts) gets its data as every runner makes it, through the
 * repository: each side its own (a delete would use the other's up), and the values it filled
 * (a fresh pet's id) compared as the names they fill.
 */
async function withSetup<Case extends NamedCase>(
  benchCase: Case,
): Promise<{ benchCase: Case; fill: SetupFill | undefined }> {
  const [fill] = (await fillsFor(benchCase, testDatabase(), 1)) ?? [];
  return { benchCase: { ...benchCase, event: withFill(benchCase.event, fill) }, fill };
}
const named = <Answer extends { body: unknown }>(answered: Answer, fill: SetupFill | undefined): Answer => ({
  ...answered,
  body: withPlaceholders(answered.body, fill),
});

describe('every function the bench runs has its baseline twin', () => {
  it.each(BENCH_FUNCTIONS)(
    '%s: ours as declared, and its twin functions/<name>/baseline.ts, both exporting handler',
    (fn) => {
      for (const side of ['ours', 'baseline'] as const) {
        const entry = relative(root, entryOf(root, side, fn));
        expect(
          existsSync(resolve(root, entry)),
          `${entry} is missing: the bench runs ${fn} ${side === 'ours' ? 'from its declaration' : 'against a framework-free twin there'}`,
        ).toBe(true);
        expect(typeof HANDLERS[side][fn], `${entry} exports no handler`).toBe('function');
      }
    },
  );
});

describe('the bench baseline answers like our stack', () => {
  it.each([...ALL_CASES, BODILESS_CASE, UNAVAILABLE_CASE].map((benchCase) => [benchCase.name, benchCase] as const))(
    '%s: same status, headers, body and log line fields',
    async (_, benchCase) => {
      const { fn, event: spec, status } = benchCase;
      const [oursSetup, baselineSetup] = [await withSetup(benchCase), await withSetup(benchCase)];
      const ours = named(await answer('ours', oursSetup.benchCase), oursSetup.fill);
      const baseline = named(await answer('baseline', baselineSetup.benchCase), baselineSetup.fill);

      expect(ours.response.statusCode).toBe(status);
      expect(baseline.response.statusCode).toBe(ours.response.statusCode);
      expect(Object.keys(baseline.response.headers ?? {}).sort()).toEqual(
        Object.keys(ours.response.headers ?? {}).sort(),
      );
      for (const name of SAME_VALUE)
        expect([name, baseline.response.headers?.[name]]).toEqual([name, ours.response.headers?.[name]]);

      if (fn === 'authorizer') {
        // The authorizer's whole answer: the policy, the usage identifier and the context.
        expect(baseline.body).toEqual(ours.body);
      } else if (ours.response.statusCode === 201) {
        // Each side creates the pet of its own request (the bench names each one), with an id of its
        // own drawn when it writes: both in the clock's (pinned) millisecond.
        const [id, theirId] = [(ours.body as { id: number }).id, (baseline.body as { id: number }).id];
        expect(ours.body).toEqual({ ...JSON.parse(ours.event.body as string), id });
        expect(baseline.body).toEqual({ ...JSON.parse(baseline.event.body as string), id: theirId });
        expect(theirId).not.toBe(id);
        expect([drawnAt(id), drawnAt(theirId)]).toEqual([now(), now()]);
        expect([ours.response.headers?.Location, baseline.response.headers?.Location]).toEqual([
          `/v1/pets/${id}`,
          `/v1/pets/${theirId}`,
        ]);
        // Each side stored its pet alike: in its shard, with the same attributes (the create's nonce its own).
        const { documentClient, tableName } = testDatabase();
        const petOf = async (petId: number) =>
          (
            await documentClient.send(
              new GetCommand({
                TableName: tableName,
                Key: { pk: shardPartition(shardOf(petId)), sk: petSortKey(petId) },
                ConsistentRead: true,
              }),
            )
          ).Item;
        const [myPet, theirPet] = [await petOf(id), await petOf(theirId)];
        expect(myPet).toMatchObject({
          id,
          statusShard: `${(ours.body as { status: string }).status}#${shardOf(id)}`,
          listShard: `pets#${shardOf(id)}`,
          nonce: expect.any(String),
        });
        expect(theirPet).toEqual({
          ...myPet,
          pk: shardPartition(shardOf(theirId)),
          sk: petSortKey(theirId),
          id: theirId,
          name: (baseline.body as { name: string }).name,
          statusShard: `${(baseline.body as { status: string }).status}#${shardOf(theirId)}`,
          listShard: `pets#${shardOf(theirId)}`,
          nonce: expect.any(String),
        });
        expect(theirPet?.nonce).not.toBe(myPet?.nonce);
        if (spec.type === 'request' && spec.freshIdempotencyKey) {
          // Each side recorded its key with its pet, in the same form.
          const recordOf = async (side: typeof ours) =>
            (
              await documentClient.send(
                new GetCommand({
                  TableName: tableName,
                  Key: {
                    pk: `IDEMPOTENCY#${authorizerContextOf(KEY).keyId}#${side.event.headers['Idempotency-Key']}`,
                    sk: 'record',
                  },
                }),
              )
            ).Item;
          const [mine, theirs] = [await recordOf(ours), await recordOf(baseline)];
          expect(mine).toMatchObject({
            pet: ours.body,
            expiresAt: expect.any(Number),
            firstUsedAt: expect.any(String),
          });
          expect(theirs).toMatchObject({ pet: baseline.body, expiresAt: mine?.expiresAt });
          expect(Object.keys(theirs ?? {}).sort()).toEqual(Object.keys(mine ?? {}).sort());
        }
      } else if (ours.response.statusCode === 204) {
        // No body, and nothing that says there is one, on either side.
        expect([ours.body, baseline.body]).toEqual(['', '']);
        expect([ours.response.headers?.['Content-Type'], baseline.response.headers?.['Content-Type']]).toEqual([
          undefined,
          undefined,
        ]);
      } else if (ours.response.statusCode >= 400) {
        const [mine, theirs] = [ours.body, baseline.body] as {
          code: string;
          status: number;
          details?: { path: string }[];
        }[];
        expect(theirs).toMatchObject({ code: mine?.code, status: mine?.status, message: expect.any(String) });
        expect(theirs?.details?.map((detail) => detail.path)).toEqual(mine?.details?.map((detail) => detail.path));
      } else {
        expect(baseline.body).toEqual(ours.body);
      }

      // A 5XX line of ours also describes the failure (`error`: name, message, stack), which the
      // baseline's synthetic 503 has none of.
      const withoutFailure = (log: Record<string, unknown>) =>
        Object.keys(log).filter((key) => !(ours.response.statusCode >= 500 && key === 'error'));
      expect(withoutFailure(baseline.log).sort()).toEqual(withoutFailure(ours.log).sort());
      if (ours.response.statusCode >= 500) expect(ours.log.error).toMatchObject({ name: 'ServiceUnavailableError' });
      for (const field of SAME_LOG_FIELDS) expect([field, baseline.log[field]]).toEqual([field, ours.log[field]]);
      // The same embedded metrics (a 5XX's by version too; an authorizer's refusal its own).
      const directive = (log: Record<string, unknown>) =>
        (log._aws as { CloudWatchMetrics?: unknown } | undefined)?.CloudWatchMetrics;
      expect(directive(baseline.log)).toEqual(directive(ours.log));
    },
  );
});

describe("the release key's requests (the releases' pet space), in the baseline too", () => {
  /** The release key's caller, as the authorizer passes it: a key's context with its pet space. */
  const RELEASE_CONTEXT = { ...authorizerContextOf(KEY), petSpace: 'releases' };
  const mainCase = (fn: BenchFunction) =>
    ALL_CASES.find((benchCase) => benchCase.fn === fn && benchCase.name === fn) as NamedCase;

  function released(
    side: Implementation,
    fn: BenchFunction,
    change: (event: APIGatewayProxyEvent) => APIGatewayProxyEvent,
  ) {
    return withLines(async (lines) => {
      const event = change(eventOf(mainCase(fn).event, { key: KEY }) as APIGatewayProxyEvent);
      event.requestContext = { ...event.requestContext, authorizer: RELEASE_CONTEXT };
      const response = (await invoke(HANDLERS[side][fn], event, lambdaContext())) as {
        statusCode: number;
        body: string;
        headers?: Record<string, string>;
      };
      expect(lines).toHaveLength(1);
      return {
        response,
        body: JSON.parse(response.body) as unknown,
        log: JSON.parse(lines[0] as string) as Record<string, unknown>,
      };
    });
  }

  it("create, get and list in the releases' partitions alike (the pet expiring in a day), with no metric on their lines", async () => {
    const { documentClient, tableName } = testDatabase();
    const items: Record<string, unknown>[] = [];
    for (const side of ['ours', 'baseline'] as const) {
      const created = await released(side, 'createPet', (event) => event);
      expect([side, created.response.statusCode]).toEqual([side, 201]);
      const id = (created.body as { id: number }).id;
      const item = (
        await documentClient.send(
          new GetCommand({
            TableName: tableName,
            Key: { pk: shardPartition(shardOf(id), 'releases'), sk: petSortKey(id) },
            ConsistentRead: true,
          }),
        )
      ).Item;
      expect([side, item]).toEqual([
        side,
        expect.objectContaining({
          id,
          statusShard: `${(created.body as { status: string }).status}#releases#${shardOf(id)}`,
          listShard: `pets#releases#${shardOf(id)}`,
          expiresAt: Math.floor(now() / 1000) + 86_400,
        }),
      ]);
      // No customer's partition holds it.
      expect(
        (
          await documentClient.send(
            new GetCommand({
              TableName: tableName,
              Key: { pk: shardPartition(shardOf(id)), sk: petSortKey(id) },
              ConsistentRead: true,
            }),
          )
        ).Item,
      ).toBeUndefined();
      items.push(item as Record<string, unknown>);

      const got = await released(side, 'getPet', (event) => ({
        ...event,
        path: `/pets/${id}`,
        pathParameters: { petId: String(id) },
      }));
      expect([side, got.response.statusCode, got.body]).toEqual([side, 200, created.body]);
      const listed = await released(side, 'listPets', (event) => ({
        ...event,
        queryStringParameters: { limit: '100' },
        multiValueQueryStringParameters: { limit: ['100'] },
      }));
      expect([
        side,
        listed.response.statusCode,
        (listed.body as { id: number }[]).some((pet) => pet.id === id),
      ]).toEqual([side, 200, true]);
      // The customers' 25 pets are not among them.
      expect([side, (listed.body as { name: string }[]).filter((pet) => pet.name.startsWith('Parity '))]).toEqual([
        side,
        [],
      ]);
      for (const answered of [created, got, listed])
        expect([side, answered.log._aws, answered.log.Requests, answered.log.plan]).toEqual([
          side,
          undefined,
          undefined,
          'pro',
        ]);
    }
    expect(Object.keys(items[1] ?? {}).sort()).toEqual(Object.keys(items[0] ?? {}).sort());

    // And no customer sees them: a customer's get answers 404, a customer's listing (a page of 100: more than this file's pets) never shows them.
    const releaseIds = items.map((item) => Number(item.id));
    // Their log lines are not what this asserts.
    await withLines(async () => {
      for (const side of ['ours', 'baseline'] as const) {
        for (const id of releaseIds) {
          const event = eventOf(mainCase('getPet').event, { key: KEY }) as APIGatewayProxyEvent;
          const got = (await invoke(
            HANDLERS[side].getPet,
            { ...event, path: `/pets/${id}`, pathParameters: { petId: String(id) } },
            lambdaContext(),
          )) as { statusCode: number };
          expect([side, id, got.statusCode]).toEqual([side, id, 404]);
        }
        const listing = eventOf(mainCase('listPets').event, { key: KEY }) as APIGatewayProxyEvent;
        const listed = (await invoke(
          HANDLERS[side].listPets,
          { ...listing, queryStringParameters: { limit: '100' }, multiValueQueryStringParameters: { limit: ['100'] } },
          lambdaContext(),
        )) as { statusCode: number; body: string };
        const ids = (JSON.parse(listed.body) as { id: number }[]).map((pet) => pet.id);
        // Fewer than a page: the listing showed every customer's pet.
        expect([
          side,
          listed.statusCode,
          ids.length > 0 && ids.length < 100,
          ids.filter((id) => releaseIds.includes(id)),
        ]).toEqual([side, 200, true, []]);
      }
    });
  });
});
