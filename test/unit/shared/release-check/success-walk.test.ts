import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { RELEASE_PROBES, type ReleasedFunction } from '../../../../functions/table';
import { principalFromContext } from '../../../../shared/auth/authorizer-contract';
import { GET_PET_DEPRECATION } from '../../../../shared/http/deprecation';
import { CHECK_ADDRESS, releasePrincipal } from '../../../../shared/release-check/check-identity';
import type { InvocationOutcome, Invoke } from '../../../../shared/release-check/invocation';
import { runReleaseCheck } from '../../../../shared/release-check/run-release-check';
import { LISTING_SETTLE_MS } from '../../../../shared/pets/pet-ids';
import {
  LISTING_MAX_PAGES,
  LISTING_PAGE,
  LISTING_SETTLE_WAIT_MS,
  NEW_RELEASE_KEY_MS,
  WALK_PET,
} from '../../../../shared/release-check/success-walk';
import { goodOutcomeOf, PROBES, RELEASE_KEY, WALK_STEPS, walkService } from '../../../support/release-probes';

/**
 * The walk through the success paths (shared/release-check/success-walk.ts), after the probes: what
 * it sends, and each way a version may break a success path that it must catch. The functions are
 * written here (walkService: good versions; each case breaks one); the real bundles walk it in
 * test/local/release-drill.test.ts.
 */
const AT = Date.UTC(2026, 10, 26, 12, 0, 0);
const [AUTHORIZE, CREATE, GET, LIST] = WALK_STEPS.map((step) => step.name) as [string, string, string, string];
const WAITS = { retryEveryMs: 5, listingWaitMs: 50, listingSettleWaitMs: 0 };

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): InvocationOutcome => ({
  kind: 'returned',
  payload: { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) },
});
const internalError = json(500, { code: 'internal_error', message: 'Something went wrong.', status: 500 });

type Answer = (event: unknown, good: () => InvocationOutcome, call: number) => InvocationOutcome;

/** The probes answered as they expect; the walk by good versions, but for the functions given, which may call the good answer. */
async function walk(
  breaks: Partial<Record<ReleasedFunction, Answer>> = {},
  at = AT,
  releaseKeyCreatedAt?: number,
  waits: Partial<typeof WAITS> = {},
) {
  const service = walkService();
  const sent: { functionName: ReleasedFunction; event: unknown }[] = [];
  const calls: Partial<Record<ReleasedFunction, number>> = {};
  const invoke: Invoke<ReleasedFunction> = async (functionName, event) => {
    sent.push({ functionName, event });
    const probe = PROBES[sent.length - 1];
    if (probe !== undefined) return goodOutcomeOf(probe);
    calls[functionName] = (calls[functionName] ?? 0) + 1;
    const good = () => service(functionName, event);
    const broken = breaks[functionName];
    return broken === undefined ? good() : broken(event, good, calls[functionName] as number);
  };
  const result = await runReleaseCheck(RELEASE_PROBES, invoke, {
    releaseKey: RELEASE_KEY,
    releaseKeyCreatedAt,
    at,
    waits: { ...WAITS, ...waits },
  });
  const steps = Object.fromEntries(
    result.probes
      .slice(PROBES.length)
      .map((step) => [
        step.name,
        step.passed ? (step.note === undefined ? 'passed' : `passed: ${step.note}`) : step.reason,
      ]),
  );
  return { passed: result.passed, steps, walked: sent.slice(PROBES.length) };
}

const passedUpTo = (failing: string, reason: string) => {
  const names = [AUTHORIZE, CREATE, GET, LIST];
  const at = names.indexOf(failing);
  const functionOf = ['authorizer', 'createPet', 'getPet', 'listPets'];
  return Object.fromEntries(
    names.map((name, i) => [
      name,
      i < at ? 'passed' : i === at ? reason : `not run: the walk's ${functionOf[at]} step failed`,
    ]),
  );
};

describe('the walk through the success paths', () => {
  it('passes when the versions allow the release key, create a pet, get it and list it: one call each', async () => {
    const { passed, steps, walked } = await walk();
    expect({ passed, steps }).toEqual({
      passed: true,
      steps: { [AUTHORIZE]: 'passed', [CREATE]: 'passed', [GET]: 'passed', [LIST]: 'passed' },
    });
    // The listing: its status page, then the first page without a filter.
    expect(walked.map(({ functionName }) => functionName)).toEqual([
      'authorizer',
      'createPet',
      'getPet',
      'listPets',
      'listPets',
    ]);
  });

  it("sends the release key to the authorizer, and the operations its principal (the releases' pet space), from the check's address", async () => {
    const { walked } = await walk();
    const [authorize, create, get, list, unfiltered] = walked.map(({ event }) => event) as [
      APIGatewayRequestAuthorizerEvent,
      APIGatewayProxyEvent,
      APIGatewayProxyEvent,
      APIGatewayProxyEvent,
      APIGatewayProxyEvent,
    ];
    expect([authorize.type, authorize.headers?.Authorization, authorize.requestContext.identity.sourceIp]).toEqual([
      'REQUEST',
      `Bearer ${RELEASE_KEY}`,
      CHECK_ADDRESS,
    ]);
    for (const event of [create, get, list, unfiltered]) {
      expect(principalFromContext(event.requestContext.authorizer)).toEqual({
        ...releasePrincipal(RELEASE_KEY),
        petSpace: 'releases',
      });
      expect([event.requestContext.identity.sourceIp, event.requestContext.requestTimeEpoch]).toEqual([
        CHECK_ADDRESS,
        AT,
      ]);
      // No credential goes to an operation.
      expect(Object.keys(event.headers).filter((name) => name.toLowerCase() === 'authorization')).toEqual([]);
    }
    expect([create.httpMethod, create.path, JSON.parse(create.body ?? '')]).toEqual([
      'POST',
      '/pets',
      { ...WALK_PET, name: `Release check ${new Date(AT).toISOString()}` },
    ]);
    expect([get.httpMethod, get.path, get.pathParameters]).toEqual(['GET', '/pets/7', { petId: '7' }]);
    // By the walk pet's status: the canary's probes create theirs in another (shared/release-check/canary-probes.ts).
    expect([list.httpMethod, list.path, list.queryStringParameters]).toEqual([
      'GET',
      '/pets',
      { status: WALK_PET.status, limit: String(LISTING_PAGE) },
    ]);
    // Then the listing most customers read: no filter, the default page.
    expect([unfiltered.httpMethod, unfiltered.path, unfiltered.queryStringParameters]).toEqual(['GET', '/pets', null]);
  });

  it('fails a listing whose unfiltered first page stays empty (or malformed) though the status listing shows the pet: its own index, what most customers read', async () => {
    const unfilteredOnly = (answer: InvocationOutcome) => (event: unknown, good: () => InvocationOutcome) =>
      (event as APIGatewayProxyEvent).queryStringParameters === null ? answer : good();
    const empty = await walk({ listPets: unfilteredOnly(json(200, [])) });
    expect([empty.passed, empty.steps[LIST]]).toEqual([
      false,
      'listed no pet without a status filter, where the pet created is, for 0.05 s',
    ]);
    // Read again as the status listing is, until the wait is over.
    expect(empty.walked.filter(({ functionName }) => functionName === 'listPets').length).toBeGreaterThan(2);
    const malformed = await walk({ listPets: unfilteredOnly(json(200, { pets: [] })) });
    expect(malformed.steps[LIST]).toBe('answered 200 with a body that is not a JSON array (GET /v1/pets, no filter)');
    const failing = await walk({ listPets: unfilteredOnly(internalError) });
    expect(failing.steps[LIST]).toBe('answered 500 internal_error instead of 200 (GET /v1/pets, no filter)');
    // One pet shown is enough: the status listing found the walk's own.
    const shown = await walk({
      listPets: unfilteredOnly(json(200, [{ id: 1, name: 'Earlier release', categoryId: 1, status: 'sold' }])),
    });
    expect(shown.passed).toBe(true);
  });

  it('fails an authorizer that refuses the release key, at once, and runs nothing after it', async () => {
    const unauthorized = () =>
      ({ kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' }) as InvocationOutcome;
    const { passed, steps, walked } = await walk({ authorizer: unauthorized });
    expect([passed, steps]).toEqual([false, passedUpTo(AUTHORIZE, 'refused the release key (Unauthorized)')]);
    expect(walked.map(({ functionName }) => functionName)).toEqual(['authorizer']);
    // A key made over an hour before the check has long been copied into the registry: a refusal fails.
    expect((await walk({ authorizer: unauthorized }, AT, AT - NEW_RELEASE_KEY_MS)).steps[AUTHORIZE]).toBe(
      'refused the release key (Unauthorized)',
    );
  });

  it('passes, with a note, an authorizer that refuses a key made within the hour (the first release with it: the mirror copies it only after the check), and walks on', async () => {
    const unauthorized = () =>
      ({ kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' }) as InvocationOutcome;
    const { passed, steps } = await walk({ authorizer: unauthorized }, AT, AT - 7 * 60_000);
    expect(passed).toBe(true);
    expect(steps).toEqual({
      [AUTHORIZE]:
        'passed: the release key is new (made 7 min ago) and not in the registry yet: the authorizer refused it, its Allow was not judged',
      [CREATE]: 'passed',
      [GET]: 'passed',
      [LIST]: 'passed',
    });
    expect(NEW_RELEASE_KEY_MS).toBe(3_600_000);
    // Only a refusal is forgiven: an Allow is judged, a new key or not.
    const otherPrincipal = await walk(
      {
        authorizer: (_event, good) => withPayload(good(), (answer) => ({ ...answer, principalId: '0000000000000000' })),
      },
      AT,
      AT - 60_000,
    );
    expect(otherPrincipal.steps[AUTHORIZE]).toBe('allowed the release key as another principal');
    const failing = await walk(
      { authorizer: () => ({ kind: 'functionError', errorType: 'TypeError', errorMessage: 'x is undefined' }) },
      AT,
      AT - 60_000,
    );
    expect(failing.steps[AUTHORIZE]).toBe('failed: TypeError: x is undefined');
  });

  it.each([
    [
      'another principal',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({ ...answer, principalId: '0000000000000000' })),
      'allowed the release key as another principal',
    ],
    [
      "a customer's principal (no pet space)",
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({
          ...answer,
          context: { ...(answer.context as object), petSpace: undefined },
        })),
      'allowed the release key without the release principal in its context (plan, limits, pet space)',
    ],
    [
      'another plan',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({ ...answer, context: { ...(answer.context as object), plan: 'free' } })),
      'allowed the release key without the release principal in its context (plan, limits, pet space)',
    ],
    [
      'a Deny',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({ ...answer, policyDocument: { Statement: [{ Effect: 'Deny' }] } })),
      'did not allow the release key',
    ],
    [
      'no usage identifier (API Gateway would answer 403)',
      (good: () => InvocationOutcome) => withPayload(good(), ({ usageIdentifierKey: _key, ...answer }) => answer),
      'allowed the release key without it as the usage identifier (API Gateway would answer 403)',
    ],
    [
      'another usage identifier',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({ ...answer, usageIdentifierKey: 'another-key' })),
      'allowed the release key without it as the usage identifier (API Gateway would answer 403)',
    ],
    [
      'an Allow of one method only',
      (good: () => InvocationOutcome) =>
        withStatement(good(), { Resource: 'arn:aws:execute-api:us-east-1:000000000000:releasecheck/v1/GET/pets' }),
      'allowed the release key, but not to invoke every method of the stage',
    ],
    [
      'an Allow of another stage',
      (good: () => InvocationOutcome) =>
        withStatement(good(), { Resource: 'arn:aws:execute-api:us-east-1:000000000000:releasecheck/v2/*/*' }),
      'allowed the release key, but not to invoke every method of the stage',
    ],
    [
      'an Allow of another action',
      (good: () => InvocationOutcome) => withStatement(good(), { Action: 'execute-api:ManageConnections' }),
      'allowed the release key, but not to invoke every method of the stage',
    ],
    [
      'two Allow statements',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({
          ...answer,
          policyDocument: {
            Statement: [
              ...(answer.policyDocument as { Statement: unknown[] }).Statement,
              { Effect: 'Allow', Action: 'execute-api:Invoke', Resource: '*' },
            ],
          },
        })),
      'allowed the release key, but not to invoke every method of the stage',
    ],
    [
      'a failure',
      () => ({ kind: 'functionError', errorType: 'Error', errorMessage: 'boom' }) as InvocationOutcome,
      'failed: Error: boom',
    ],
  ])('fails an authorizer that answers the release key with %s', async (_case, answer, reason) => {
    const { steps } = await walk({ authorizer: (_event, good) => answer(good) });
    expect(steps).toEqual(passedUpTo(AUTHORIZE, reason));
  });

  it.each([
    ['500', () => internalError, 'answered 500 internal_error instead of 201'],
    [
      '201 with another pet',
      (good: () => InvocationOutcome) => withBody(good(), (pet) => ({ ...pet, status: 'sold' })),
      'answered 201 with a body that holds a pet other than the one sent',
    ],
    [
      '201 without a pet',
      () => json(201, { id: 7 }, { Location: '/v1/pets/7' }),
      'answered 201 with a body that holds no pet: it has no name',
    ],
    [
      '201 without its Location',
      (good: () => InvocationOutcome) =>
        withPayload(good(), (answer) => ({ ...answer, headers: { 'Content-Type': 'application/json' } })),
      "answered 201 without the pet's Location",
    ],
  ])('fails a create that answers %s, and runs nothing after it', async (_case, answer, reason) => {
    const { steps, walked } = await walk({ createPet: (_event, good) => answer(good) });
    expect(steps).toEqual(passedUpTo(CREATE, reason));
    expect(walked.map(({ functionName }) => functionName)).toEqual(['authorizer', 'createPet']);
  });

  it.each([
    ['500 on the pet just created', () => internalError, 'answered 500 internal_error instead of 200'],
    [
      '404 on the pet just created',
      () => json(404, { code: 'not_found', message: 'No pet.', status: 404 }),
      'answered 404 not_found instead of 200',
    ],
    [
      'another pet',
      (good: () => InvocationOutcome) => withBody(good(), (pet) => ({ ...pet, id: 8 })),
      'answered 200 with a body that is not the pet created',
    ],
  ])('fails a get that answers %s', async (_case, answer, reason) => {
    const { steps } = await walk({ getPet: (_event, good) => answer(good) });
    expect(steps).toEqual(passedUpTo(GET, reason));
  });

  it("expects getPet's 410 gone from its sunset on, and walks on to the listing", async () => {
    const sunset = GET_PET_DEPRECATION.sunsetAt.getTime();
    const gone = () => json(410, { code: 'gone', message: 'Gone.', status: 410 });
    expect((await walk({ getPet: gone }, sunset)).steps).toEqual({
      [AUTHORIZE]: 'passed',
      [CREATE]: 'passed',
      [GET]: 'passed',
      [LIST]: 'passed',
    });
    expect((await walk({}, sunset)).steps[GET]).toBe('answered 200 instead of 410');
  });

  it('fails a listing that answers an empty page where pets exist, once its wait is over, reading it again meanwhile', async () => {
    const { steps, walked } = await walk({ listPets: () => json(200, []) });
    expect(steps).toEqual(passedUpTo(LIST, 'listed 0 pets without the pet created, for 0.05 s'));
    expect(walked.filter(({ functionName }) => functionName === 'listPets').length).toBeGreaterThan(1);
  });

  it.each([
    ['500', () => internalError, 'answered 500 internal_error instead of 200'],
    [
      'a malformed page',
      () => json(200, [{ id: 7 }]),
      'answered 200 with a body that holds a malformed pet at 0: it has no name',
    ],
  ])('fails a listing that answers %s', async (_case, answer, reason) => {
    expect((await walk({ listPets: answer })).steps).toEqual(passedUpTo(LIST, reason));
  });

  it("lists only once the listing's settle time has passed since the create (a pet shows once its id is half a second old)", async () => {
    let createdAt = 0;
    let listedAt = 0;
    const { passed } = await walk(
      {
        createPet: (_event, good) => {
          createdAt = performance.now();
          return good();
        },
        listPets: (_event, good) => {
          listedAt ||= performance.now();
          return good();
        },
      },
      AT,
      undefined,
      { listingSettleWaitMs: 150 },
    );
    expect(passed).toBe(true);
    expect(listedAt - createdAt).toBeGreaterThanOrEqual(145);
    expect(LISTING_SETTLE_WAIT_MS).toBe(LISTING_SETTLE_MS + 100);
  });

  it("passes a listing that shows the pet only after a while (its settle time, the index's lag)", async () => {
    const { passed, walked } = await walk({ listPets: (_event, good, call) => (call < 3 ? json(200, []) : good()) });
    expect(passed).toBe(true);
    // Two empty status pages, the one that shows it, the unfiltered page.
    expect(walked.filter(({ functionName }) => functionName === 'listPets').length).toBe(4);
  });

  it("follows the listing's Link from page to page (earlier releases' pets before it), and gives up after 20 pages", async () => {
    const other = { id: 1, name: 'Earlier release', categoryId: 1, status: 'pending' };
    const linked = (cursor: string) =>
      json(200, [other], {
        Link: `<https://api.example.com/v1/pets?limit=${LISTING_PAGE}&cursor=${cursor}>; rel="next"`,
      });
    const paged = await walk({
      listPets: (event, good) =>
        (event as APIGatewayProxyEvent).queryStringParameters?.cursor === 'page3'
          ? good()
          : linked((event as APIGatewayProxyEvent).queryStringParameters?.cursor === 'page2' ? 'page3' : 'page2'),
    });
    expect(paged.passed).toBe(true);
    expect(
      paged.walked
        .filter(({ functionName }) => functionName === 'listPets')
        .map(({ event }) => (event as APIGatewayProxyEvent).queryStringParameters),
    ).toEqual([
      { status: WALK_PET.status, limit: String(LISTING_PAGE) },
      { status: WALK_PET.status, limit: String(LISTING_PAGE), cursor: 'page2' },
      { status: WALK_PET.status, limit: String(LISTING_PAGE), cursor: 'page3' },
      null,
    ]);
    const endless = await walk({ listPets: () => linked('more') });
    expect(endless.steps[LIST]).toBe(`listed ${LISTING_MAX_PAGES} pets without the pet created, for 0.05 s`);
  });
});

function withPayload(
  outcome: InvocationOutcome,
  change: (payload: Record<string, unknown>) => Record<string, unknown>,
): InvocationOutcome {
  if (outcome.kind !== 'returned') throw new Error('a good version returns');
  return { kind: 'returned', payload: change(outcome.payload as Record<string, unknown>) };
}

function withStatement(outcome: InvocationOutcome, change: Record<string, unknown>): InvocationOutcome {
  return withPayload(outcome, (answer) => {
    const [statement] = (answer.policyDocument as { Statement: Record<string, unknown>[] }).Statement;
    return { ...answer, policyDocument: { Version: '2012-10-17', Statement: [{ ...statement, ...change }] } };
  });
}

function withBody(
  outcome: InvocationOutcome,
  change: (body: Record<string, unknown>) => Record<string, unknown>,
): InvocationOutcome {
  return withPayload(outcome, (payload) => ({
    ...payload,
    body: JSON.stringify(change(JSON.parse(payload.body as string) as Record<string, unknown>)),
  }));
}
