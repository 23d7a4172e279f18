import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DOCUMENTATION_ROUTES,
  OPERATION_IDS,
  RELEASE_PROBES,
  RELEASED_FUNCTIONS,
  type ReleasedFunction,
} from '../../../../functions/table';
import { principalFromContext } from '../../../../shared/auth/authorizer-contract';
import { hashApiKey, keyIdOf } from '../../../../shared/auth/api-key-hash';
import { readBearer } from '../../../../shared/auth/bearer';
import { SWAGGER_UI_FILES } from '../../../../shared/docs/reference-page';
import { GET_PET_DEPRECATION } from '../../../../shared/http/deprecation';
import { ErrorBody } from '../../../../shared/http/error-body';
import { PET_ID_TEXT } from '../../../../shared/pets/fields';
import { Pet } from '../../../../shared/pets/pet';
import { drawnAt, UNISSUED_PET_ID } from '../../../../shared/pets/pet-ids';
import { errorBodyProblem, petProblem } from '../../../../shared/release-check/answer-shapes';
import { CHECK_ADDRESS, releasePrincipal, unknownToken } from '../../../../shared/release-check/check-identity';
import { pathOf } from '../../../../shared/release-check/gateway-events';
import type { InvocationOutcome, Invoke } from '../../../../shared/release-check/invocation';
import { releaseProbesOf, type ReleaseProbe } from '../../../../shared/release-check/probes';
import {
  CHECK_DEADLINE_MS,
  PROBE_DEADLINE_MS,
  PROBES_AT_ONCE,
  runReleaseCheck,
  type ReleaseCheckOptions,
} from '../../../../shared/release-check/run-release-check';
import {
  goodOutcomeOf,
  GOOD_PET,
  PROBES,
  RELEASE_KEY,
  resultsWith,
  WALK_STEPS,
  walkService,
} from '../../../support/release-probes';

/**
 * The release check's judgement (shared/release-check/), on outcomes written here: each reason a
 * probe fails for, its deadline, and the events it sends. The probes are the table's
 * (functions/table.ts, RELEASE_PROBES: each function's declared ones), never listed here. The real
 * functions answer it in test/local/release-drill.test.ts; the hook that runs it in AWS is
 * test/unit/functions/releaseCheck/handler.test.ts.
 */
const AT = Date.UTC(2026, 10, 26, 12, 0, 0);
const TOKEN = 'release-check-test-token';

const returned = (payload: unknown): InvocationOutcome => ({ kind: 'returned', payload });
const thrown = (errorType: string, errorMessage: string): InvocationOutcome => ({
  kind: 'functionError',
  errorType,
  errorMessage,
});
const answer = (statusCode: number, body: unknown = '') =>
  returned({
    statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const errorAnswer = (status: number, code: string) => answer(status, { code, message: 'What went wrong.', status });
const PET = GOOD_PET;

/** The probe a call was: the probes start in their order, so the nth call is the nth probe. */
const probeAt = (call: number) => PROBES[call] as (typeof PROBES)[number];

/**
 * Answers each probe as it expects (goodOutcomeOf), but those given (by probe name, or by function
 * for all its probes); then the walk as good versions do (walkService), but the steps given by name.
 */
function invokeWith(
  overrides: Readonly<Record<string, InvocationOutcome | Error>> = {},
): Invoke<ReleasedFunction> & { calls: { functionName: ReleasedFunction; event: unknown }[] } {
  const calls: { functionName: ReleasedFunction; event: unknown }[] = [];
  const service = walkService();
  const invoke = async (functionName: ReleasedFunction, event: unknown) => {
    calls.push({ functionName, event });
    const index = calls.length - 1;
    if (index >= PROBES.length) {
      const step = WALK_STEPS.find((walkStep) => walkStep.functionName === functionName)?.name as string;
      const outcome = overrides[step] ?? service(functionName, event);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    }
    const probe = probeAt(index);
    const outcome = overrides[probe.name] ?? overrides[functionName] ?? goodOutcomeOf(probe);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  return Object.assign(invoke, { calls });
}

/** The walk's listing here shows its pet at once: no settle time to wait (test/unit/shared/release-check/success-walk.test.ts holds the waits). */
const check = (invoke: Invoke<ReleasedFunction>, at = AT, options: Partial<ReleaseCheckOptions> = {}) =>
  runReleaseCheck(RELEASE_PROBES, invoke, {
    releaseKey: RELEASE_KEY,
    at,
    token: TOKEN,
    waits: { listingSettleWaitMs: 0 },
    ...options,
  });
const nameOf = (functionName: ReleasedFunction) =>
  PROBES.find((probe) => probe.functionName === functionName)?.name as string;

describe('the release check', () => {
  it("passes when every function answers as it should: each released function's probes, in the table's order, then the walk's steps", async () => {
    expect(await check(invokeWith())).toEqual({ passed: true, probes: resultsWith() });
    expect(
      resultsWith()
        .slice(PROBES.length)
        .map((result) => result.functionName),
    ).toEqual(['authorizer', 'createPet', 'getPet', 'listPets']);
    expect([...new Set(resultsWith().map((result) => result.functionName))]).toEqual(RELEASED_FUNCTIONS);
    expect(PROBES.map((probe) => probe.name)).toEqual([...new Set(PROBES.map((probe) => probe.name))]);
  });

  it.each([
    // Any function error but the authorizer's Unauthorized.
    [
      'listPets',
      thrown(
        'Runtime.ImportModuleError',
        "Error: Cannot find module 'x'\n    at load (file:///var/task/index.mjs:1:1)",
      ),
      "failed: Runtime.ImportModuleError: Error: Cannot find module 'x' at load (file:///var/task/index.mjs:1:1)",
    ],
    [
      'getPet',
      thrown('Sandbox.Timedout', 'Task timed out after 10.00 seconds'),
      'failed: Sandbox.Timedout: Task timed out after 10.00 seconds',
    ],
    [
      'authorizer',
      thrown('TimeoutError', 'The operation ran into the function timeout.'),
      'failed: TimeoutError: The operation ran into the function timeout.',
    ],
    ['authorizer', thrown('Error', 'unauthorized'), 'failed: Error: unauthorized'],
    // Another status than the expected one.
    ['listPets', errorAnswer(500, 'internal_error'), 'answered 500 internal_error instead of 200'],
    ['listPets', answer(502, 'Bad Gateway'), 'answered 502 instead of 200'],
    ['getPet', answer(200, PET), 'answered 200 instead of 404'],
    ['createPet', answer(201, PET), 'answered 201 instead of 400'],
    ['apiDocs', errorAnswer(404, 'not_found'), 'answered 404 not_found instead of 200'],
    // Not an answer at all.
    ['listPets', returned(null), 'answered no API Gateway proxy result'],
    ['getPet', returned({ status: 404 }), 'answered no API Gateway proxy result'],
    // The listing's shape.
    ['listPets', answer(200, 'not json'), 'answered 200 with a body that is not JSON'],
    ['listPets', answer(200, { pets: [] }), 'answered 200 with a body that is not a JSON array'],
    [
      'listPets',
      answer(200, [PET, { ...PET, id: 2 }]),
      'answered 200 with a body that holds 2 pets, more than the limit of 1',
    ],
    [
      'listPets',
      answer(200, [{ ...PET, name: '' }]),
      'answered 200 with a body that holds a malformed pet at 0: it has no name',
    ],
    [
      'listPets',
      answer(200, [{ ...PET, owner: 'x' }]),
      'answered 200 with a body that holds a malformed pet at 0: it has a member a Pet has not',
    ],
    [
      'listPets',
      answer(200, [{ ...PET, status: 'lost' }]),
      'answered 200 with a body that holds a malformed pet at 0: it has no known status',
    ],
    // The Error body: missing, not JSON, malformed, another code.
    ['getPet', answer(404), 'answered 404 without an Error body'],
    ['getPet', answer(404, 'Not Found'), 'answered 404 with an Error body that is not JSON'],
    ['getPet', answer(404, ['not_found']), 'answered 404 with an Error body that is not a JSON object'],
    [
      'getPet',
      answer(404, { message: 'No such pet.', status: 404 }),
      'answered 404 with an Error body that has no known code',
    ],
    [
      'getPet',
      answer(404, { code: 'not_found', message: '', status: 404 }),
      'answered 404 with an Error body that has no message',
    ],
    [
      'getPet',
      answer(404, { code: 'not_found', message: 'No such pet.' }),
      'answered 404 with an Error body that has no error status',
    ],
    [
      'getPet',
      answer(404, { code: 'not_found', message: 'No such pet.', status: 400 }),
      'answered 404 with an Error body that says status 400',
    ],
    [
      'getPet',
      answer(404, { code: 'not_found', message: 'No such pet.', status: 404, id: 7 }),
      'answered 404 with an Error body that has a member the Error body has not',
    ],
    ['getPet', errorAnswer(404, 'gone'), 'answered 404 gone instead of 404 not_found'],
    [
      'createPet',
      answer(400, { code: 'invalid_request', message: 'Bad.', status: 400, details: [] }),
      'answered 400 with an Error body that has malformed details',
    ],
    [
      'createPet',
      answer(400, { code: 'invalid_request', message: 'Bad.', status: 400, details: [{ path: 'body.name' }] }),
      'answered 400 with an Error body that has malformed details',
    ],
    // The authorizer: anything but a refusal.
    [
      'authorizer',
      returned({
        principalId: 'x',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
        },
      }),
      'allowed an unknown token',
    ],
    [
      'authorizer',
      returned({
        principalId: 'x',
        policyDocument: { Statement: [{ Effect: 'Deny' }, { Effect: 'Allow' }] },
        context: { code: 'rate_limited' },
      }),
      'allowed an unknown token',
    ],
    ['authorizer', returned({ principalId: 'x' }), 'answered neither Unauthorized nor a Deny policy'],
    ['authorizer', returned(null), 'answered neither Unauthorized nor a Deny policy'],
    [
      'authorizer',
      returned({ principalId: 'address', policyDocument: { Statement: [{ Effect: 'Deny' }] } }),
      "denied without the 429's code in its context",
    ],
    // The invocation itself failed.
    [
      'createPet',
      new Error('connect ECONNREFUSED 127.0.0.1:9001'),
      'its invocation failed: Error: connect ECONNREFUSED 127.0.0.1:9001',
    ],
    // One whose message quotes the release key (a DOMException's message cannot be set: a new error, its name kept), and a function error that does, cut short after the key is replaced.
    [
      'getPet',
      new DOMException(`aborted, key ${RELEASE_KEY}`, 'AbortError'),
      'its invocation failed: AbortError: aborted, key <the release key>',
    ],
    [
      'listPets',
      { kind: 'functionError', errorType: 'Error', errorMessage: `${'x'.repeat(190)}${RELEASE_KEY}` },
      `failed: Error: ${`${'x'.repeat(190)}<the release key>`.slice(0, 199)}…`,
    ],
  ] as const)('fails the %s probes when its outcome is %j: %s', async (functionName, outcome, reason) => {
    const failures = Object.fromEntries(
      PROBES.filter((probe) => probe.functionName === functionName).map((probe) => [probe.name, reason]),
    );
    expect(await check(invokeWith({ [functionName]: outcome }))).toEqual({
      passed: false,
      probes: resultsWith(failures),
    });
  });

  it("takes a Deny for the address's used-up allowance (the 429 in its context) as the refusal it is", async () => {
    const denied = returned({
      principalId: 'address',
      policyDocument: { Statement: [{ Effect: 'Deny' }] },
      context: { code: 'rate_limited', message: 'Too many.' },
    });
    const suspended = returned({
      principalId: 'address',
      policyDocument: { Statement: [{ Effect: 'Deny' }] },
      context: { code: 'key_suspended', message: 'Suspended.' },
    });
    expect(await check(invokeWith({ authorizer: denied }))).toEqual({ passed: true, probes: resultsWith() });
    expect(await check(invokeWith({ authorizer: suspended }))).toEqual({ passed: true, probes: resultsWith() });
  });

  it("keeps a reason on one line and short: a function error's message is cut at 200 characters", async () => {
    const long = `${'a'.repeat(150)}\n\n${'b'.repeat(100)}`;
    const { probes } = await check(invokeWith({ getPet: thrown('Error', long) }));
    expect(probes.find((probe) => probe.functionName === 'getPet')).toEqual({
      name: nameOf('getPet'),
      functionName: 'getPet',
      passed: false,
      reason: `failed: Error: ${'a'.repeat(150)} ${'b'.repeat(48)}…`,
    });
  });

  it("expects getPet's 410 gone from its sunset on, by the time the check starts (its declaration's deprecation)", async () => {
    const sunset = GET_PET_DEPRECATION.sunsetAt.getTime();
    const getPet = nameOf('getPet');
    expect(PROBES.filter((probe) => probe.goneFrom !== undefined).map((probe) => [probe.name, probe.goneFrom])).toEqual(
      [[getPet, sunset]],
    );
    expect(await check(invokeWith(), sunset - 1)).toEqual({ passed: true, probes: resultsWith() });
    const [, , walkGet, walkList] = WALK_STEPS.map((step) => step.name) as [string, string, string, string];
    expect(await check(invokeWith(), sunset)).toEqual({
      passed: false,
      probes: resultsWith({
        [getPet]: 'answered 404 not_found instead of 410',
        [walkGet]: 'answered 200 instead of 410',
        [walkList]: "not run: the walk's getPet step failed",
      }),
    });
    expect(
      await check(invokeWith({ getPet: errorAnswer(410, 'gone'), [walkGet]: errorAnswer(410, 'gone') }), sunset),
    ).toEqual({ passed: true, probes: resultsWith() });
  });

  it("runs one probe at a time (a new account's concurrency), and fails one that does not answer by its deadline (its invocation aborted), then goes on", async () => {
    const started: ReleasedFunction[] = [];
    const signals = new Map<ReleasedFunction, AbortSignal>();
    let running = 0;
    let most = 0;
    const service = walkService();
    const invoke: Invoke<ReleasedFunction> = async (functionName, event, signal) => {
      const probe = probeAt(started.length);
      started.push(functionName);
      signals.set(functionName, signal);
      running += 1;
      most = Math.max(most, running);
      try {
        // Never answers, ignores the abort: from then on it runs no more, as far as the check can know.
        if (functionName === 'getPet')
          return await new Promise<never>(() => signal.addEventListener('abort', () => (running -= 1)));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return probe === undefined ? service(functionName, event) : goodOutcomeOf(probe);
      } finally {
        running -= 1;
      }
    };
    const startedAt = performance.now();
    const result = await check(invoke, AT, { probeDeadlineMs: 200, deadlineMs: 5_000 });
    const [, , walkGet, walkList] = WALK_STEPS.map((step) => step.name) as string[];
    expect(result).toEqual({
      passed: false,
      probes: resultsWith({
        [nameOf('getPet')]: 'no answer within 0.2 s',
        [walkGet as string]: 'no answer within 0.2 s',
        [walkList as string]: "not run: the walk's getPet step failed",
      }),
    });
    // Every probe ran, in order, one at a time, the next once getPet's deadline had passed; then the walk, up to its get.
    expect(started).toEqual([...PROBES.map((probe) => probe.functionName), 'authorizer', 'createPet', 'getPet']);
    expect([most, PROBES_AT_ONCE]).toEqual([1, 1]);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect([signals.get('getPet')?.aborted, signals.get('listPets')?.aborted]).toEqual([true, false]);
  });

  it('fails the probes its deadline leaves no time for, and ends by it', async () => {
    let calls = 0;
    const invoke: Invoke<ReleasedFunction> = async () => {
      calls += 1;
      // The first two answer at once; the next two never (aborted or not).
      return calls <= 2 ? goodOutcomeOf(probeAt(calls - 1)) : new Promise<never>(() => undefined);
    };
    const startedAt = performance.now();
    expect(PROBES.length).toBeGreaterThan(4);
    const result = await check(invoke, AT, { deadlineMs: 100 });
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    // One at a time: the first two probes answer; the third is cut at the check's 100 ms; the rest never start.
    expect(result.passed).toBe(false);
    expect(result.probes.map((probe) => (probe.passed ? 'passed' : probe.reason))).toEqual([
      'passed',
      'passed',
      "no answer by the check's deadline (0.1 s)",
      ...PROBES.slice(3).map(() => "not run: the check's deadline had passed"),
      ...WALK_STEPS.map(() => "not run: the check's deadline had passed"),
    ]);
  });

  it("has a deadline of its own of a minute and a half (one probe at a time, the walk's listing waiting for its pet, throttled invocations), and each probe one of 25 s", () => {
    expect([CHECK_DEADLINE_MS, PROBE_DEADLINE_MS]).toEqual([90_000, 25_000]);
  });
});

describe("the release check's requests", () => {
  const sent = async () => {
    const invoke = invokeWith();
    await check(invoke);
    // The probes' (the walk's: test/unit/shared/release-check/success-walk.test.ts).
    return invoke.calls.slice(0, PROBES.length);
  };

  it("come to every operation from the release key's principal, in the releases' pet space, as API Gateway passes an allowed caller", async () => {
    const calls = await sent();
    const asCheck = calls.filter((_, index) => probeAt(index).sentAs === 'checkPrincipal');
    // Every operation is probed, and as the check's principal.
    expect(new Set(asCheck.map((call) => call.functionName))).toEqual(new Set(OPERATION_IDS));
    for (const { functionName, event } of asCheck) {
      const proxy = event as APIGatewayProxyEvent;
      expect([functionName, principalFromContext(proxy.requestContext.authorizer)]).toEqual([
        functionName,
        releasePrincipal(RELEASE_KEY),
      ]);
      expect([
        functionName,
        proxy.requestContext.identity.sourceIp,
        proxy.requestContext.requestTimeEpoch,
        proxy.requestContext.stage,
      ]).toEqual([functionName, CHECK_ADDRESS, AT, 'v1']);
      // No credential goes to an operation: the authorizer resolved the caller.
      expect([
        functionName,
        Object.keys(proxy.headers).filter((name) => name.toLowerCase() === 'authorization'),
      ]).toEqual([functionName, []]);
    }
    expect(releasePrincipal(RELEASE_KEY)).toEqual({
      keyId: keyIdOf(hashApiKey(RELEASE_KEY)),
      plan: 'business',
      limits: { perMinute: 1_000, perDay: 100_000 },
      petSpace: 'releases',
    });
    expect(CHECK_ADDRESS).toBe('192.0.2.1');
  });

  it("are each API Gateway's proxy event for its probe's route and request; the anonymous ones without a caller", async () => {
    const calls = await sent();
    const proxied = calls.flatMap((call, index) =>
      probeAt(index).sentAs === 'unknownToken'
        ? []
        : [{ probe: probeAt(index), event: call.event as APIGatewayProxyEvent }],
    );
    expect(proxied.length).toBe(PROBES.filter((probe) => probe.sentAs !== 'unknownToken').length);
    for (const { probe, event } of proxied) {
      const { route, query, pathParameters, headers = {}, body } = probe.request;
      const multi = (values: Readonly<Record<string, string>>) =>
        Object.fromEntries(Object.entries(values).map(([name, value]) => [name, [value]]));
      expect([
        probe.name,
        event.httpMethod,
        event.resource,
        event.path,
        event.pathParameters,
        event.queryStringParameters,
        event.multiValueQueryStringParameters,
        event.body,
        event.isBase64Encoded,
      ]).toEqual([
        probe.name,
        route.method,
        route.path,
        pathOf(probe.request),
        pathParameters ?? null,
        query ?? null,
        query === undefined ? null : multi(query),
        body ?? null,
        false,
      ]);
      expect([probe.name, event.headers, event.multiValueHeaders]).toEqual([
        probe.name,
        expect.objectContaining(headers),
        expect.objectContaining(multi(headers)),
      ]);
      if (probe.sentAs === 'anonymous')
        expect([probe.name, event.requestContext.authorizer]).toEqual([probe.name, null]);
    }
    // Each request its own id.
    expect(new Set(calls.map((call) => (call.event as APIGatewayProxyEvent).requestContext.requestId)).size).toBe(
      calls.length,
    );
  });

  it('ask for a page of one, a pet never issued and an invalid pet; and for each documentation route and file, without a caller', () => {
    const requestOf = (functionName: ReleasedFunction) =>
      PROBES.filter((probe) => probe.functionName === functionName).map(({ request, sentAs, expect }) => ({
        request,
        sentAs,
        expect,
      }));
    expect(requestOf('listPets')).toEqual([
      {
        request: { route: { method: 'GET', path: '/pets' }, query: { limit: '1' } },
        sentAs: 'checkPrincipal',
        expect: { status: 200, body: { kind: 'petPage', atMost: 1 } },
      },
    ]);
    expect(requestOf('getPet')).toEqual([
      {
        request: {
          route: { method: 'GET', path: '/pets/{petId}' },
          pathParameters: { petId: String(UNISSUED_PET_ID) },
        },
        sentAs: 'checkPrincipal',
        expect: { status: 404, code: 'not_found' },
      },
    ]);
    expect(requestOf('createPet')).toEqual([
      {
        request: {
          route: { method: 'POST', path: '/pets' },
          headers: { 'Content-Type': 'application/json' },
          body: '{"name":" ","categoryId":0}',
        },
        sentAs: 'checkPrincipal',
        expect: { status: 400, code: 'invalid_request' },
      },
    ]);
    const docs = PROBES.filter((probe) => probe.functionName === 'apiDocs');
    expect(docs.map(({ sentAs, expect }) => ({ sentAs, expect }))).toEqual(
      docs.map(() => ({ sentAs: 'anonymous', expect: { status: 200 } })),
    );
    expect(new Set(docs.map((probe) => probe.request.route))).toEqual(new Set(Object.values(DOCUMENTATION_ROUTES)));
    expect(
      docs
        .filter((probe) => probe.request.route === DOCUMENTATION_ROUTES.apiReferenceAsset)
        .map((probe) => probe.request.pathParameters?.asset),
    ).toEqual(SWAGGER_UI_FILES);
  });

  it('give the authorizer a REQUEST event with the unknown token as a bearer credential, from the documentation address', async () => {
    const calls = await sent();
    const toAuthorizer = calls.filter((_, index) => probeAt(index).sentAs === 'unknownToken');
    expect(toAuthorizer.map((call) => call.functionName)).toEqual(['authorizer']);
    const event = toAuthorizer[0]?.event as APIGatewayRequestAuthorizerEvent;
    expect([event.type, event.httpMethod, event.resource, event.path, event.methodArn]).toEqual([
      'REQUEST',
      'GET',
      '/pets',
      '/v1/pets',
      'arn:aws:execute-api:us-east-1:000000000000:releasecheck/v1/GET/pets',
    ]);
    expect([
      event.headers?.Authorization,
      event.multiValueHeaders?.Authorization,
      event.requestContext.identity.sourceIp,
    ]).toEqual([`Bearer ${TOKEN}`, [`Bearer ${TOKEN}`], '192.0.2.1']);
    expect((event.requestContext as unknown as Record<string, unknown>).authorizer).toBeUndefined();
  });

  it('use a random, well-formed token each check', () => {
    const [one, two] = [unknownToken(), unknownToken()];
    expect(one).not.toBe(two);
    expect(readBearer(`Bearer ${one}`)).toEqual({ kind: 'token', token: one });
    expect(one).toMatch(/^release-check-[A-Za-z0-9_-]{32}$/);
  });

  it("ask for a pet id that passes getPet's checks and that no create ever drew: 2026-02-01, before time-ordered ids were written, above every id of the retired counter", () => {
    expect(UNISSUED_PET_ID).toBe(10_970_726_400_000);
    expect(PET_ID_TEXT.test(String(UNISSUED_PET_ID))).toBe(true);
    expect(new Date(drawnAt(UNISSUED_PET_ID)).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    // The counter: 1,000 creates a second for 100 years (test/unit/shared/pets/pet-ids.test.ts).
    expect(UNISSUED_PET_ID).toBeGreaterThan(1_000 * 86_400 * 365 * 100);
  });
});

describe('the probes gathered from the declarations (releaseProbesOf)', () => {
  const probe: ReleaseProbe = { request: {}, sentAs: 'checkPrincipal', expect: { status: 404, code: 'not_found' } };
  const route = { method: 'GET', path: '/things/{id}' } as const;

  it("take an operation's route unless the probe names one, and a deprecated operation's sunset; a function without probes has none", () => {
    const sunsetAt = new Date(Date.UTC(2031, 0, 1));
    const other = { method: 'GET', path: '/other' } as const;
    expect(
      releaseProbesOf({
        thing: {
          route,
          success: { status: 200 },
          errors: [404, 410],
          deprecation: { sunsetAt },
          releaseProbes: [probe, { ...probe, request: { route: other } }],
        },
        quiet: {},
      }),
    ).toEqual([
      { ...probe, functionName: 'thing', request: { route }, goneFrom: sunsetAt.getTime() },
      { ...probe, functionName: 'thing', request: { route: other }, goneFrom: sunsetAt.getTime() },
    ]);
  });

  it('refuse a probe without a route, one that expects a status its operation does not name, and a deprecated operation that does not name 410', () => {
    expect(() => releaseProbesOf({ docs: { releaseProbes: [probe] } })).toThrow(
      "docs's release probe 1 names no route, and docs has none of its own",
    );
    expect(() =>
      releaseProbesOf({ thing: { route, success: { status: 200 }, errors: [400], releaseProbes: [probe] } }),
    ).toThrow(
      "thing's release probe 1 expects 404, which thing's declaration names neither as its success nor among its errors (200, 400)",
    );
    expect(() =>
      releaseProbesOf({
        thing: {
          route,
          success: { status: 200 },
          errors: [404],
          deprecation: { sunsetAt: new Date(0) },
          releaseProbes: [probe],
        },
      }),
    ).toThrow(
      "thing's release probe 1: thing is deprecated, so its probes expect 410 from its sunset on, which its errors do not name",
    );
  });
});

describe('the shapes the check reads without zod', () => {
  const errorBodies: unknown[] = [
    { code: 'not_found', message: 'No such pet.', status: 404 },
    { code: 'invalid_request', message: 'Bad.', status: 400, details: [{ path: 'body.name', message: 'is required' }] },
    { code: 'nope', message: 'x', status: 404 },
    { code: 'not_found', message: '', status: 404 },
    { code: 'not_found', message: 'x', status: 399 },
    { code: 'not_found', message: 'x', status: 600 },
    { code: 'not_found', message: 'x', status: 404.5 },
    { code: 'not_found', message: 'x', status: '404' },
    { code: 'not_found', message: 'x' },
    { message: 'x', status: 404 },
    { code: 'not_found', message: 'x', status: 404, extra: 1 },
    { code: 'invalid_request', message: 'x', status: 400, details: [] },
    { code: 'invalid_request', message: 'x', status: 400, details: [{ path: 'a', message: 'b', more: 1 }] },
    { code: 'invalid_request', message: 'x', status: 400, details: [{ path: 1, message: 'b' }] },
    { code: 'invalid_request', message: 'x', status: 400, details: 'none' },
    [],
    null,
    'not_found',
  ];
  it.each(errorBodies.map((body) => [JSON.stringify(body), body]))(
    'the Error body %s: refused exactly when the schema refuses it',
    (_, body) => {
      expect(errorBodyProblem(body) === undefined).toBe(ErrorBody.safeParse(body).success);
    },
  );

  const pets: unknown[] = [
    PET,
    { ...PET, status: 'sold' },
    { ...PET, id: Number.MAX_SAFE_INTEGER },
    { ...PET, id: Number.MAX_SAFE_INTEGER + 1 },
    { ...PET, id: 0 },
    { ...PET, id: 1.5 },
    { ...PET, id: '1' },
    { ...PET, name: '' },
    { ...PET, name: 7 },
    { ...PET, categoryId: 0 },
    { ...PET, status: 'lost' },
    { ...PET, extra: true },
    { id: 1, name: 'Rex', status: 'available' },
    [PET],
    null,
  ];
  it.each(pets.map((pet) => [JSON.stringify(pet), pet]))(
    'the Pet %s: refused exactly when the schema refuses it',
    (_, pet) => {
      expect(petProblem(pet) === undefined).toBe(Pet.safeParse(pet).success);
    },
  );
});
