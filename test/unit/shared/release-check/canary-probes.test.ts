import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { principalFromContext } from '../../../../shared/auth/authorizer-contract';
import {
  CANARY_MIN_JUDGED_PER_MINUTE,
  CANARY_PET,
  CANARY_ROUNDS_PER_MINUTE,
  PROBER_TIMEOUT_SECONDS,
  reasonsOf,
  runCanaryProbes,
  type CanaryProbeSetting,
} from '../../../../shared/release-check/canary-probes';
import { CHECK_ADDRESS, releasePrincipal } from '../../../../shared/release-check/check-identity';
import type { InvocationOutcome, Invoke } from '../../../../shared/release-check/invocation';
import { WALK_FUNCTIONS, WALK_PET, type WalkFunction } from '../../../../shared/release-check/success-walk';
import { RELEASE_KEY, walkService } from '../../../support/release-probes';

/**
 * The requests the release prober sends a canary's new versions (shared/release-check/canary-probes.ts),
 * and what it counts of them: the functions are written here (walkService: good versions, holding
 * the pet the release's walk left; each case breaks one). The prober's handler around it:
 * test/unit/functions/releaseProber/handler.test.ts; its rounds against the deployed bundles: test/local/release-drill.test.ts.
 */
const AT = Date.UTC(2026, 10, 29, 12, 0, 0);
const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): InvocationOutcome => ({
  kind: 'returned',
  payload: { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) },
});
const unauthorized: InvocationOutcome = { kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' };

type Answer = (
  event: unknown,
  good: () => InvocationOutcome,
  call: number,
  signal: AbortSignal,
) => InvocationOutcome | Promise<InvocationOutcome>;

/** Rounds against good versions, but for the functions given. */
async function probe(
  shifting: readonly WalkFunction[],
  breaks: Partial<Record<WalkFunction, Answer>> = {},
  setting: Partial<CanaryProbeSetting> = {},
) {
  const service = walkService();
  // The pet the release's walk left in the releases' space before the canary began.
  service('createPet', { body: JSON.stringify({ ...WALK_PET, name: 'Release check' }) });
  const sent: { functionName: WalkFunction; event: unknown }[] = [];
  const calls: Partial<Record<WalkFunction, number>> = {};
  const invoke: Invoke<WalkFunction> = async (functionName, event, signal) => {
    sent.push({ functionName, event });
    calls[functionName] = (calls[functionName] ?? 0) + 1;
    const good = () => service(functionName, event);
    const broken = breaks[functionName];
    return broken === undefined ? good() : broken(event, good, calls[functionName] as number, signal);
  };
  const tallies = await runCanaryProbes(invoke, {
    shifting: new Set(shifting),
    principal: releasePrincipal(RELEASE_KEY),
    releaseKey: RELEASE_KEY,
    releaseKeyIsNew: false,
    at: AT,
    rounds: 3,
    budgetMs: 30_000,
    ...setting,
  });
  return { tallies, sent };
}

const clean = (sent: number) => ({ sent, failures: 0, unjudged: 0, reasons: [] });
const never = (_event: unknown, _good: unknown, _call: number, signal: AbortSignal) =>
  new Promise<InvocationOutcome>((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error)),
  );

describe("the canary's probes", () => {
  it("sends each shifting function the walk's requests, in three lanes at once (the authorizer; a create and the get of its pet; the listing), and counts them", async () => {
    const { tallies, sent } = await probe(WALK_FUNCTIONS);
    expect(tallies).toEqual({ authorizer: clean(3), createPet: clean(3), getPet: clean(3), listPets: clean(3) });
    // The lanes start together; in the create lane each get follows its create.
    expect(sent.slice(0, 3).map(({ functionName }) => functionName)).toEqual(['authorizer', 'createPet', 'listPets']);
    expect(
      sent.map(({ functionName }) => functionName).filter((name) => name === 'createPet' || name === 'getPet'),
    ).toEqual([1, 2, 3].flatMap(() => ['createPet', 'getPet']));
    const first = (name: WalkFunction) => sent.find(({ functionName }) => functionName === name)?.event;
    const [authorize, create, get, list] = [
      first('authorizer'),
      first('createPet'),
      first('getPet'),
      first('listPets'),
    ] as [APIGatewayRequestAuthorizerEvent, APIGatewayProxyEvent, APIGatewayProxyEvent, APIGatewayProxyEvent];
    expect([authorize.headers?.Authorization, authorize.requestContext.identity.sourceIp]).toEqual([
      `Bearer ${RELEASE_KEY}`,
      CHECK_ADDRESS,
    ]);
    // As the release principal, in the releases' pet space, from the check's address.
    for (const event of [create, get, list]) {
      expect([principalFromContext(event.requestContext.authorizer), event.requestContext.identity.sourceIp]).toEqual([
        releasePrincipal(RELEASE_KEY),
        CHECK_ADDRESS,
      ]);
    }
    // Its pets in a status the walk's listing does not search.
    expect(JSON.parse(create.body as string)).toEqual({
      ...CANARY_PET,
      name: `${CANARY_PET.name} 2026-11-29T12:00:00.000Z 1`,
    });
    expect(CANARY_PET.status).not.toBe(WALK_PET.status);
    expect([get.httpMethod, get.path]).toEqual(['GET', '/pets/8']);
    expect([list.httpMethod, list.path, list.queryStringParameters]).toEqual(['GET', '/pets', null]);
    // What the gates' arithmetic counts on: 65 asked a minute, 60 judged at least.
    expect([CANARY_ROUNDS_PER_MINUTE, CANARY_MIN_JUDGED_PER_MINUTE, PROBER_TIMEOUT_SECONDS]).toEqual([65, 60, 55]);
  });

  it('counts only the functions shifting: a get whose createPet is not shifting still creates its pet (through the live alias), uncounted', async () => {
    const { tallies, sent } = await probe(['getPet']);
    expect(tallies).toEqual({ getPet: clean(3) });
    expect(sent.map(({ functionName }) => functionName)).toEqual([1, 2, 3].flatMap(() => ['createPet', 'getPet']));
    // A create that failed leaves no pet to get: that get is not sent.
    const failedCreate = await probe(['getPet'], {
      createPet: (_event, good, call) =>
        call === 2 ? json(500, { code: 'internal_error', message: 'Something went wrong.', status: 500 }) : good(),
    });
    expect(failedCreate.tallies).toEqual({ getPet: clean(2) });
    expect((await probe(['listPets'])).sent.map(({ functionName }) => functionName)).toEqual([
      'listPets',
      'listPets',
      'listPets',
    ]);
    expect(await probe([])).toEqual({ tallies: {}, sent: [] });
  });

  it("counts a failure that the version's own metrics do not: a crash, a wrong status or body, an empty listing; a 5XX answer judged but not counted failed (its Status5xx counts it)", async () => {
    const crash = {
      kind: 'functionError',
      errorType: 'Runtime.ImportModuleError',
      errorMessage: 'Cannot find module',
    } as const;
    const failing = await probe(['createPet', 'getPet', 'listPets'], {
      createPet: (_event, good, call) =>
        call === 1
          ? json(500, { code: 'internal_error', message: 'Something went wrong.', status: 500 })
          : call === 2
            ? crash
            : good(),
      getPet: () => json(404, { code: 'not_found', message: 'No such pet.', status: 404 }),
      listPets: (_event, good, call) =>
        call === 2 ? json(200, []) : call === 3 ? json(200, { not: 'a page' }) : good(),
    });
    expect(failing.tallies.createPet).toEqual({
      sent: 3,
      failures: 1,
      unjudged: 0,
      reasons: ['failed: Runtime.ImportModuleError: Cannot find module'],
    });
    // Only the third round created a pet to get.
    expect(failing.tallies.getPet).toEqual({
      sent: 1,
      failures: 1,
      unjudged: 0,
      reasons: ['answered 404 not_found instead of 200'],
    });
    expect(failing.tallies.listPets).toEqual({
      sent: 3,
      failures: 2,
      unjudged: 0,
      reasons: [
        "answered 200 with a body that holds no pet, where the release's walk left one",
        'answered 200 with a body that is not a JSON array',
      ],
    });
    // A 201 without the pet's Location, or with another pet.
    const located = await probe(['createPet'], {
      createPet: (_event, good, call) => {
        const answer = good() as { kind: 'returned'; payload: Record<string, unknown> };
        return call === 1
          ? { kind: 'returned', payload: { ...answer.payload, headers: { 'Content-Type': 'application/json' } } }
          : answer;
      },
    });
    expect(located.tallies.createPet).toEqual({
      sent: 3,
      failures: 1,
      unjudged: 0,
      reasons: ["answered 201 without the pet's Location"],
    });
    const other = await probe(['createPet'], {
      createPet: (_event, _good, call) =>
        json(201, { id: call, name: 'Rex', categoryId: 1, status: 'sold' }, { Location: `/v1/pets/${call}` }),
    });
    expect(other.tallies.createPet).toMatchObject({ sent: 3, failures: 3 });
  });

  it("counts the authorizer's refusal of the release key, and any answer but the Allow; no reason quotes the key, not even in part", async () => {
    const refusing = await probe(['authorizer'], {
      authorizer: () => ({ kind: 'functionError', errorType: 'Error', errorMessage: `Unauthorized: ${RELEASE_KEY}` }),
    });
    expect(refusing.tallies.authorizer).toEqual({
      sent: 3,
      failures: 3,
      unjudged: 0,
      reasons: Array(3).fill('failed: Error: Unauthorized: <the release key>'),
    });
    // The key straddling where a reason is cut short: replaced before the cut.
    const long = await probe(['authorizer'], {
      authorizer: () => ({
        kind: 'functionError',
        errorType: 'Error',
        errorMessage: `${'x'.repeat(190)}${RELEASE_KEY}`,
      }),
    });
    expect(long.tallies.authorizer?.reasons[0]).toBe(
      `failed: Error: ${`${'x'.repeat(190)}<the release key>`.slice(0, 199)}…`,
    );
    const denying = await probe(['authorizer'], {
      authorizer: () => ({
        kind: 'returned',
        payload: {
          principalId: 'x',
          policyDocument: { Statement: [{ Effect: 'Deny', Action: 'execute-api:Invoke', Resource: '*' }] },
        },
      }),
    });
    expect(denying.tallies.authorizer).toMatchObject({ sent: 3, failures: 3 });
    expect(reasonsOf(denying.tallies.authorizer!)).toBe(
      'did not allow the release key; did not allow the release key; did not allow the release key',
    );
  });

  it("while the release key is new, does not judge the authorizer's refusal of it as an unknown key (Unauthorized, or the 429 Deny once the check's address is over the Free limits), and judges every other answer", async () => {
    const refused = await probe(['authorizer'], { authorizer: () => unauthorized }, { releaseKeyIsNew: true });
    expect(refused.tallies.authorizer).toEqual({
      sent: 0,
      failures: 0,
      unjudged: 3,
      reasons: Array(3).fill(
        'not judged: the release key is new and may not be in the registry yet: refused as an unknown key',
      ),
    });
    // The address's allowance used up: a Deny with the 429's code, as the authorizer answers an unknown key then.
    const deny = {
      kind: 'returned',
      payload: {
        principalId: '192.0.2.1',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: '*' }],
        },
        context: { code: 'rate_limited' },
      },
    } as const;
    expect(
      (
        await probe(
          ['authorizer'],
          { authorizer: (_event, _good, call) => (call === 2 ? deny : unauthorized) },
          { releaseKeyIsNew: true },
        )
      ).tallies.authorizer,
    ).toMatchObject({ sent: 0, failures: 0, unjudged: 3 });
    // A key over an hour old: the same Deny fails.
    expect((await probe(['authorizer'], { authorizer: () => deny })).tallies.authorizer).toMatchObject({
      sent: 3,
      failures: 3,
      unjudged: 0,
    });
    expect((await probe(['authorizer'], {}, { releaseKeyIsNew: true })).tallies.authorizer).toEqual(clean(3));
    const crashing = await probe(
      ['authorizer'],
      { authorizer: () => ({ kind: 'functionError', errorType: 'TypeError', errorMessage: 'x is undefined' }) },
      { releaseKeyIsNew: true },
    );
    expect(crashing.tallies.authorizer).toMatchObject({ sent: 3, failures: 3, unjudged: 0 });
  });

  it("judges nothing of a request the version did not answer for reasons of its own: a throttle, Lambda unreachable, the release key's own limits (429)", async () => {
    const { tallies } = await probe(['createPet', 'getPet', 'listPets'], {
      createPet: (_event, good, call) => {
        if (call === 2) throw Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });
        return good();
      },
      listPets: (_event, good, call) =>
        call === 1
          ? json(429, { code: 'rate_limited', message: 'Slow down.', status: 429 })
          : call === 2
            ? Promise.reject(Object.assign(new Error(`denied for ${RELEASE_KEY}`), { name: 'AccessDeniedException' }))
            : good(),
    });
    expect(tallies).toEqual({
      createPet: {
        sent: 2,
        failures: 0,
        unjudged: 1,
        reasons: ['not judged: its invocation failed: TooManyRequestsException: Rate exceeded'],
      },
      getPet: clean(2),
      listPets: {
        sent: 1,
        failures: 0,
        unjudged: 2,
        reasons: [
          "not judged: answered 429: the release key's own limits",
          'not judged: its invocation failed: AccessDeniedException: denied for <the release key>',
        ],
      },
    });
  });

  it("counts an invocation that never answers failed at its own deadline (a hung version), and one cut at the run's end not judged; no round starts after it", async () => {
    const hung = await probe(
      ['listPets'],
      { listPets: never },
      { rounds: 2, invocationDeadlineMs: 30, budgetMs: 5_000 },
    );
    expect(hung.tallies.listPets).toEqual({
      sent: 2,
      failures: 2,
      unjudged: 0,
      reasons: ['no answer within 0.03 s', 'no answer within 0.03 s'],
    });
    const cut = await probe(
      ['listPets'],
      { listPets: never },
      { rounds: 5, invocationDeadlineMs: 5_000, budgetMs: 40 },
    );
    expect(cut.tallies.listPets).toEqual({
      sent: 0,
      failures: 0,
      unjudged: 1,
      reasons: ["not judged: cut at the run's end"],
    });
    expect(cut.sent).toHaveLength(1);
  });

  it('keeps at most 3 reasons a function', async () => {
    const broken = await probe(['listPets'], { listPets: () => json(400, {}) }, { rounds: 5 });
    expect([broken.tallies.listPets?.failures, broken.tallies.listPets?.reasons.length]).toEqual([5, 3]);
  });

  it("expects 410 `gone` from a get once getPet's sunset has passed", async () => {
    const after = await probe(['getPet'], {}, { getPetGoneFrom: AT });
    expect(after.tallies.getPet).toMatchObject({ sent: 3, failures: 3 });
    const gone = await probe(
      ['getPet'],
      { getPet: () => json(410, { code: 'gone', message: 'Gone.', status: 410 }) },
      { getPetGoneFrom: AT },
    );
    expect(gone.tallies.getPet).toEqual(clean(3));
    expect((await probe(['getPet'], {}, { getPetGoneFrom: AT + 1 })).tallies.getPet).toEqual(clean(3));
  });
});
