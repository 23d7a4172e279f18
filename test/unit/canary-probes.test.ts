import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { principalFromContext } from '../../shared/auth/authorizer-contract';
import { CANARY_LISTING_PAGE, CANARY_PET, reasonsOf, runCanaryProbes, type CanaryProbeSetting } from '../../shared/release-check/canary-probes';
import { CHECK_ADDRESS, releasePrincipal } from '../../shared/release-check/check-identity';
import type { InvocationOutcome, Invoke } from '../../shared/release-check/invocation';
import { WALK_FUNCTIONS, WALK_PET, type WalkFunction } from '../../shared/release-check/success-walk';
import { RELEASE_KEY, walkService } from '../support/release-probes';

/**
 * The requests the release prober sends a canary's new versions (shared/release-check/canary-probes.ts),
 * and what it counts of them: the functions are written here (walkService: good versions; each case
 * breaks one). The prober's handler around it: release-prober.test.ts.
 */
const AT = Date.UTC(2026, 10, 29, 12, 0, 0);
const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): InvocationOutcome => ({
  kind: 'returned',
  payload: { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) },
});

type Answer = (event: unknown, good: () => InvocationOutcome, call: number) => InvocationOutcome | Promise<InvocationOutcome>;

/** Rounds against good versions, but for the functions given. */
async function probe(shifting: readonly WalkFunction[], breaks: Partial<Record<WalkFunction, Answer>> = {}, setting: Partial<CanaryProbeSetting> = {}) {
  const service = walkService();
  const sent: { functionName: WalkFunction; event: unknown }[] = [];
  const calls: Partial<Record<WalkFunction, number>> = {};
  const invoke: Invoke<WalkFunction> = async (functionName, event) => {
    sent.push({ functionName, event });
    calls[functionName] = (calls[functionName] ?? 0) + 1;
    const good = () => service(functionName, event);
    const broken = breaks[functionName];
    return broken === undefined ? good() : broken(event, good, calls[functionName] as number);
  };
  const tallies = await runCanaryProbes(invoke, { shifting: new Set(shifting), principal: releasePrincipal(RELEASE_KEY), releaseKey: RELEASE_KEY, at: AT, rounds: 3, budgetMs: 30_000, ...setting });
  return { tallies, sent };
}

const clean = (sent: number) => ({ sent, failures: 0, reasons: [] });

describe('the canary\'s probes', () => {
  it('sends each shifting function the walk\'s requests, a round at a time, and counts them: the release key to the authorizer, a create, a get of that pet, a listing\'s first page', async () => {
    const { tallies, sent } = await probe(WALK_FUNCTIONS);
    expect(tallies).toEqual({ authorizer: clean(3), createPet: clean(3), getPet: clean(3), listPets: clean(3) });
    expect(sent.map(({ functionName }) => functionName)).toEqual([1, 2, 3].flatMap(() => ['authorizer', 'createPet', 'getPet', 'listPets']));
    const [authorize, create, get, list] = sent.map(({ event }) => event) as [APIGatewayRequestAuthorizerEvent, APIGatewayProxyEvent, APIGatewayProxyEvent, APIGatewayProxyEvent];
    expect([authorize.headers?.Authorization, authorize.requestContext.identity.sourceIp]).toEqual([`Bearer ${RELEASE_KEY}`, CHECK_ADDRESS]);
    // As the release principal, in the releases' pet space, from the check's address.
    for (const event of [create, get, list]) {
      expect([principalFromContext(event.requestContext.authorizer), event.requestContext.identity.sourceIp]).toEqual([releasePrincipal(RELEASE_KEY), CHECK_ADDRESS]);
    }
    // Its pets in a status the walk's listing does not read.
    expect(JSON.parse(create.body as string)).toEqual({ ...CANARY_PET, name: `${CANARY_PET.name} 2026-11-29T12:00:00.000Z 1` });
    expect(CANARY_PET.status).not.toBe(WALK_PET.status);
    expect([get.httpMethod, get.path]).toEqual(['GET', '/pets/7']);
    expect([list.httpMethod, list.path, list.queryStringParameters]).toEqual(['GET', '/pets', { limit: String(CANARY_LISTING_PAGE) }]);
  });

  it('counts only the functions shifting: a get whose createPet is not shifting still creates its pet (through the live alias), uncounted', async () => {
    const { tallies, sent } = await probe(['getPet']);
    expect(tallies).toEqual({ getPet: clean(3) });
    expect(sent.map(({ functionName }) => functionName)).toEqual([1, 2, 3].flatMap(() => ['createPet', 'getPet']));
    expect((await probe(['listPets'])).sent.map(({ functionName }) => functionName)).toEqual(['listPets', 'listPets', 'listPets']);
    expect(await probe([])).toEqual({ tallies: {}, sent: [] });
  });

  it('counts a failure that the version\'s own metrics do not: a crash, a wrong status or body, a refused key; a 5XX answer counted sent only (its Status5xx counts it)', async () => {
    const crash = { kind: 'functionError', errorType: 'Runtime.ImportModuleError', errorMessage: 'Cannot find module' } as const;
    const failing = await probe(['createPet', 'getPet', 'listPets'], {
      createPet: (_event, good, call) => (call === 1 ? json(500, { code: 'internal_error', message: 'Something went wrong.', status: 500 }) : call === 2 ? crash : good()),
      getPet: () => json(404, { code: 'not_found', message: 'No such pet.', status: 404 }),
      listPets: (_event, good, call) => (call === 3 ? json(200, { not: 'a page' }) : good()),
    });
    expect(failing.tallies.createPet).toEqual({ sent: 3, failures: 1, reasons: ['failed: Runtime.ImportModuleError: Cannot find module'] });
    // Only the third round created a pet to get.
    expect(failing.tallies.getPet).toMatchObject({ sent: 1, failures: 1 });
    expect(failing.tallies.listPets).toMatchObject({ sent: 3, failures: 1 });
    // A 201 without the pet's Location, or with another pet.
    const located = await probe(['createPet'], {
      createPet: (_event, good, call) => {
        const answer = good() as { kind: 'returned'; payload: Record<string, unknown> };
        return call === 1 ? { kind: 'returned', payload: { ...answer.payload, headers: { 'Content-Type': 'application/json' } } } : answer;
      },
    });
    expect(located.tallies.createPet).toEqual({ sent: 3, failures: 1, reasons: ['answered 201 without the pet\'s Location'] });
    const other = await probe(['createPet'], { createPet: (_event, _good, call) => json(201, { id: call, name: 'Rex', categoryId: 1, status: 'sold' }, { Location: `/v1/pets/${call}` }) });
    expect(other.tallies.createPet).toMatchObject({ sent: 3, failures: 3 });
  });

  it('counts the authorizer\'s refusal of the release key, and any answer but the Allow; no reason quotes the key', async () => {
    const refusing = await probe(['authorizer'], { authorizer: () => ({ kind: 'functionError', errorType: 'Error', errorMessage: `Unauthorized: ${RELEASE_KEY}` }) });
    expect(refusing.tallies.authorizer).toEqual({ sent: 3, failures: 3, reasons: Array(3).fill('failed: Error: Unauthorized: <the release key>') });
    const denying = await probe(['authorizer'], { authorizer: () => ({ kind: 'returned', payload: { principalId: 'x', policyDocument: { Statement: [{ Effect: 'Deny', Action: 'execute-api:Invoke', Resource: '*' }] } } }) });
    expect(denying.tallies.authorizer).toMatchObject({ sent: 3, failures: 3 });
    expect(reasonsOf(denying.tallies.authorizer!)).toBe('did not allow the release key; did not allow the release key; did not allow the release key');
  });

  it('keeps at most 3 reasons a function, and sends the authorizer nothing without a release key to send (a new key: not in the registry yet)', async () => {
    const many = await probe(['listPets'], { listPets: () => json(503, {}) }, { rounds: 5 });
    expect(many.tallies.listPets).toEqual({ sent: 5, failures: 0, reasons: [] });
    const broken = await probe(['listPets'], { listPets: () => json(400, {}) }, { rounds: 5 });
    expect([broken.tallies.listPets?.failures, broken.tallies.listPets?.reasons.length]).toEqual([5, 3]);
    const keyless = await probe(WALK_FUNCTIONS, {}, { releaseKey: undefined });
    expect(keyless.tallies).toEqual({ createPet: clean(3), getPet: clean(3), listPets: clean(3) });
    expect(keyless.sent.some(({ functionName }) => functionName === 'authorizer')).toBe(false);
  });

  it('counts an invocation that failed (throttled, unreachable) neither sent nor failed: it says nothing of the version', async () => {
    const { tallies } = await probe(['createPet', 'getPet'], {
      createPet: (_event, good, call) => {
        if (call === 2) throw Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });
        return good();
      },
    });
    expect(tallies).toEqual({ createPet: clean(2), getPet: clean(2) });
  });

  it('starts no round that its last invocation could not finish within the budget, and bounds each invocation by its deadline', async () => {
    // 12 s an invocation (over a function's 10 s timeout): a budget under that starts nothing.
    expect((await probe(WALK_FUNCTIONS, {}, { budgetMs: 11_999 })).sent).toEqual([]);
    // An invocation that never answers is aborted at its deadline, and counted neither way; the next round would end past the budget.
    const aborted: unknown[] = [];
    const hanging: Invoke<WalkFunction> = (_name, _event, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted.push(signal.reason);
          reject(signal.reason as Error);
        });
      });
    const tallies = await runCanaryProbes(hanging, { shifting: new Set(['listPets']), principal: releasePrincipal(RELEASE_KEY), releaseKey: RELEASE_KEY, at: AT, rounds: 5, budgetMs: 75, invocationDeadlineMs: 50 });
    expect([tallies, aborted.length, (aborted[0] as Error).name]).toEqual([{}, 1, 'TimeoutError']);
  });

  it('expects 410 `gone` from a get once getPet\'s sunset has passed', async () => {
    const after = await probe(['getPet'], {}, { getPetGoneFrom: AT });
    expect(after.tallies.getPet).toMatchObject({ sent: 3, failures: 3 });
    const gone = await probe(['getPet'], { getPet: () => json(410, { code: 'gone', message: 'Gone.', status: 410 }) }, { getPetGoneFrom: AT });
    expect(gone.tallies.getPet).toEqual(clean(3));
    expect((await probe(['getPet'], {}, { getPetGoneFrom: AT + 1 })).tallies.getPet).toEqual(clean(3));
  });
});
