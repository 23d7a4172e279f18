import { join } from 'node:path';
import type { GetApiKeyCommand, GetApiKeyCommandOutput } from '@aws-sdk/client-api-gateway';
import type { PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import type { InvokeCommand, InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  KEY_READ_DEADLINE_MS,
  KEY_READ_RETRY_MS,
  readReleaseTargets,
  releaseCheckHook,
  REPORT_DEADLINE_MS,
  THROTTLED_RETRY_MS,
  type HookClients,
  type HookSettings,
} from '../../../../functions/releaseCheck/handler';
import * as GENERATED from '../../../../functions/releaseCheck/probes.generated';
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  RELEASE_PROBES,
  RELEASED_FUNCTIONS,
  type ReleasedFunction,
} from '../../../../functions/table';
import { esbuildOptionsFor } from '../../../../infra/bundling';
import { setLogSink } from '../../../../shared/log';
import { pathOf } from '../../../../shared/release-check/gateway-events';
import type { InvocationOutcome } from '../../../../shared/release-check/invocation';
import {
  goodOutcomeOf,
  PROBES,
  RELEASE_KEY,
  WALK_INVOCATIONS,
  WALK_STEPS,
  walkService,
} from '../../../support/release-probes';

/**
 * The CodeDeploy hook (functions/releaseCheck/handler.ts) with Lambda and CodeDeploy clients of the
 * test's own (no emulator of either exists): what it invokes, what it reports, what it logs.
 */
const root = join(import.meta.dirname, '..', '..', '..', '..');
const EVENT = { DeploymentId: 'd-ABCDEF123', LifecycleEventHookExecutionId: 'hook-execution-1' };
const arnOf = (name: string, version: number) =>
  `arn:aws:lambda:eu-west-1:123456789012:function:PetStore-prod-${name}:${version}`;
const TARGETS = Object.fromEntries(RELEASED_FUNCTIONS.map((name, i) => [name, arnOf(name, i + 3)]));
const TARGETS_JSON = JSON.stringify(TARGETS);
/** Each version by number, as the log line gives them. */
const VERSIONS = Object.fromEntries(RELEASED_FUNCTIONS.map((name, i) => [name, String(i + 3)]));
const functionOf = (arn: string) => RELEASED_FUNCTIONS.find((name) => TARGETS[name] === arn) as string;
const nameOf = (functionName: ReleasedFunction) =>
  PROBES.find((probe) => probe.functionName === functionName)?.name as string;

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as InvokeCommandOutput['Payload'];
const returned = (value: unknown): InvokeCommandOutput => ({ $metadata: {}, StatusCode: 200, Payload: encode(value) });
const unhandled = (errorType: string, errorMessage: string): InvokeCommandOutput => ({
  $metadata: {},
  StatusCode: 200,
  FunctionError: 'Unhandled',
  Payload: encode({ errorType, errorMessage, trace: [] }),
});
const proxyAnswer = (statusCode: number, body: unknown) =>
  returned({
    statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** An outcome as Lambda returns it. */
const asLambdaOutput = (outcome: InvocationOutcome): InvokeCommandOutput =>
  outcome.kind === 'returned' ? returned(outcome.payload) : unhandled(outcome.errorType, outcome.errorMessage);

interface Fakes {
  readonly clients: HookClients;
  readonly invoked: {
    functionName: string;
    input: InvokeCommand['input'];
    event: Record<string, unknown>;
    signal: AbortSignal;
  }[];
  readonly reported: PutLifecycleEventHookExecutionStatusCommand['input'][];
  readonly keyReads: { input: GetApiKeyCommand['input']; signal: AbortSignal }[];
}

/** When API Gateway made the release key: long before the checks here (its Allow is judged). */
const KEY_MADE = new Date(Date.UTC(2026, 10, 1));
/** The release key's id in API Gateway, as the stack gives it. */
const RELEASE_API_KEY_ID = 'a1b2c3d4e5';
/** The walk's listing without its settle time (the fakes show a pet at once): its waits are the walk's own tests' (test/unit/shared/release-check/success-walk.test.ts). */
const settingsOf = (targetsJson: string | undefined, more: Partial<HookSettings> = {}): HookSettings => ({
  targetsJson,
  releaseApiKeyId: RELEASE_API_KEY_ID,
  waits: { listingSettleWaitMs: 0 },
  ...more,
});

/**
 * The clients, answering each probe as it expects (the probes start in their order: the nth call is
 * the nth probe) but for the functions given (by name), then the walk as good versions do; API
 * Gateway giving the release key (or `keyRead`'s answer).
 */
function fakes(
  answers: Record<string, () => InvokeCommandOutput | Promise<InvokeCommandOutput>> = {},
  report: () => Promise<unknown> = async () => ({}),
  keyRead: (signal: AbortSignal) => Promise<GetApiKeyCommandOutput> = async () => ({
    $metadata: {},
    id: RELEASE_API_KEY_ID,
    value: RELEASE_KEY,
    enabled: true,
    createdDate: KEY_MADE,
  }),
  walkAnswers: Partial<Record<string, () => InvocationOutcome>> = {},
): Fakes {
  const invoked: Fakes['invoked'] = [];
  const reported: Fakes['reported'] = [];
  const keyReads: Fakes['keyReads'] = [];
  const service = walkService();
  const requests = new Map<string, number>();
  const clients: HookClients = {
    lambda: {
      async send(command, { abortSignal }) {
        const functionName = functionOf(command.input.FunctionName as string);
        const payload = new TextDecoder().decode(command.input.Payload as Uint8Array);
        const event = JSON.parse(payload);
        invoked.push({ functionName, input: command.input, event, signal: abortSignal });
        // The nth request is the nth probe (each has its own request id: a retry sends the same one again).
        if (!requests.has(payload)) requests.set(payload, requests.size);
        const probe = PROBES[requests.get(payload) as number];
        if (probe === undefined) return asLambdaOutput(walkAnswers[functionName]?.() ?? service(functionName, event));
        return (answers[functionName] ?? (() => asLambdaOutput(goodOutcomeOf(probe))))();
      },
    },
    apiGateway: {
      async send(command, { abortSignal }) {
        keyReads.push({ input: command.input, signal: abortSignal });
        return keyRead(abortSignal);
      },
    },
    codeDeploy: {
      async send(command) {
        reported.push(command.input);
        return report();
      },
    },
  };
  return { clients, invoked, reported, keyReads };
}

let lines: string[] = [];
let restoreSink: () => void;
beforeEach(() => {
  lines = [];
  const previous = setLogSink((line) => lines.push(line));
  restoreSink = () => setLogSink(previous);
});
afterEach(() => restoreSink());

/** The log lines, without what changes from run to run. */
const logged = (): Record<string, unknown>[] =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map(({ time, durationMs, ...entry }) => ({
      ...entry,
      ...(durationMs === undefined ? {} : { durationMs: typeof durationMs }),
    }));
const reportOf = (status: string) => ({
  deploymentId: EVENT.DeploymentId,
  lifecycleEventHookExecutionId: EVENT.LifecycleEventHookExecutionId,
  status,
});

describe('the release check hook', () => {
  it('invokes each new version by its qualified ARN, synchronously, each call with a deadline, and reports Succeeded: one log line', async () => {
    const { clients, invoked, reported, keyReads } = fakes();
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    // The release key, read once, before anything is invoked.
    expect(keyReads.map(({ input }) => input)).toEqual([{ apiKey: RELEASE_API_KEY_ID, includeValue: true }]);
    expect(invoked.map(({ functionName, input }) => [functionName, input.FunctionName, input.InvocationType])).toEqual(
      [...PROBES.map(({ functionName }) => functionName), ...WALK_INVOCATIONS].map((functionName) => [
        functionName,
        TARGETS[functionName],
        'RequestResponse',
      ]),
    );
    expect(
      invoked
        .slice(0, PROBES.length)
        .map(({ event }) =>
          event.type === 'REQUEST'
            ? `authorizer ${event.httpMethod} ${event.resource}`
            : `${event.httpMethod} ${event.path}`,
        ),
    ).toEqual(
      PROBES.map(({ sentAs, request }) =>
        sentAs === 'unknownToken'
          ? `authorizer ${request.route.method} ${request.route.path}`
          : `${request.route.method} ${pathOf(request)}`,
      ),
    );
    expect(invoked.every(({ signal }) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
    expect(reported).toEqual([reportOf('Succeeded')]);
    expect(logged()).toEqual([
      {
        level: 'info',
        msg: 'release check',
        deploymentId: EVENT.DeploymentId,
        status: 'Succeeded',
        versions: VERSIONS,
        probes: PROBES.length + WALK_STEPS.length,
        failedProbes: 0,
        durationMs: 'number',
      },
    ]);
    // The key is in no log line.
    expect(lines.filter((line) => line.includes(RELEASE_KEY))).toEqual([]);
  });

  it('reports Failed when a probe fails, with a log line for it that names the function and the reason, and none with the token', async () => {
    const allow = () =>
      returned({
        principalId: 'x',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
        },
      });
    const { clients, invoked, reported } = fakes({
      authorizer: allow,
      listPets: () => proxyAnswer(500, { code: 'internal_error', message: 'Something went wrong.', status: 500 }),
    });
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Failed')]);
    const reasons: Record<string, string> = {
      listPets: 'answered 500 internal_error instead of 200',
      authorizer: 'allowed an unknown token',
    };
    expect(logged()).toEqual([
      ...PROBES.filter(({ functionName }) => reasons[functionName] !== undefined).map(({ name, functionName }) => ({
        level: 'error',
        msg: 'release check probe failed',
        deploymentId: EVENT.DeploymentId,
        probe: name,
        function: functionName,
        reason: reasons[functionName],
      })),
      {
        level: 'error',
        msg: 'release check',
        deploymentId: EVENT.DeploymentId,
        status: 'Failed',
        versions: VERSIONS,
        probes: PROBES.length + WALK_STEPS.length,
        failedProbes: 2,
        durationMs: 'number',
      },
    ]);
    const toAuthorizer = invoked.find(({ functionName }) => functionName === 'authorizer');
    const token = ((toAuthorizer!.event.headers as Record<string, string>).Authorization as string).replace(
      'Bearer ',
      '',
    );
    expect(token).toMatch(/^release-check-/);
    expect(lines.filter((line) => line.includes(token))).toEqual([]);
  });

  it("reports Failed, not silence, when a version does not answer by the check's deadline: the call is aborted", async () => {
    const never = () => new Promise<never>(() => undefined); // answers nothing, aborted or not
    const { clients, invoked, reported } = fakes({ getPet: never });
    const startedAt = performance.now();
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON, { checkDeadlineMs: 150 }))(EVENT);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(reported).toEqual([reportOf('Failed')]);
    expect(invoked.find(({ functionName }) => functionName === 'getPet')?.signal.aborted).toBe(true);
    expect(logged()[0]).toEqual({
      level: 'error',
      msg: 'release check probe failed',
      deploymentId: EVENT.DeploymentId,
      probe: nameOf('getPet'),
      function: 'getPet',
      reason: "no answer by the check's deadline (0.15 s)",
    });
  });

  it('gives the check less time when the function has less left than the check and the report need', async () => {
    const never = () => new Promise<never>(() => undefined);
    const { clients, reported } = fakes({ createPet: never });
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT, {
      getRemainingTimeInMillis: () => REPORT_DEADLINE_MS + 1_000 + 120,
    });
    expect(reported).toEqual([reportOf('Failed')]);
    expect(logged()[0]).toMatchObject({ function: 'createPet', reason: "no answer by the check's deadline (0.12 s)" });
  });

  it("reports Failed when an invocation itself fails (no right to invoke, throttled), with the error's name and message", async () => {
    const denied = () =>
      Promise.reject(
        Object.assign(new Error('User is not authorized to perform: lambda:InvokeFunction'), {
          name: 'AccessDeniedException',
        }),
      );
    const { clients, reported } = fakes({ apiDocs: denied });
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Failed')]);
    const failures = logged().filter((entry) => entry.msg === 'release check probe failed');
    expect(failures.map((entry) => [entry.probe, entry.reason])).toEqual(
      PROBES.filter(({ functionName }) => functionName === 'apiDocs').map(({ name }) => [
        name,
        'its invocation failed: AccessDeniedException: User is not authorized to perform: lambda:InvokeFunction',
      ]),
    );
  });

  it("tries a throttled invocation again, waiting longer each time, until it goes through (a new account's concurrency used up for a moment)", async () => {
    let throttled = 0;
    const throttle = Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });
    const { clients, invoked, reported } = fakes({
      listPets: () => {
        throttled += 1;
        if (throttled <= 3) return Promise.reject(throttle);
        return asLambdaOutput(
          goodOutcomeOf(PROBES.find((probe) => probe.functionName === 'listPets') as (typeof PROBES)[number]),
        );
      },
    });
    const startedAt = performance.now();
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Succeeded')]);
    // Three waits: 0.25, 0.5 and 1 s.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(THROTTLED_RETRY_MS.first * 7 - 50);
    expect(invoked.filter(({ functionName }) => functionName === 'listPets').length).toBe(
      4 + WALK_INVOCATIONS.filter((functionName) => functionName === 'listPets').length,
    );
    expect(THROTTLED_RETRY_MS).toEqual({ first: 250, most: 2_000 });
  });

  it('fails a probe whose invocation stays throttled, at its deadline; another error is not tried again', async () => {
    const throttle = Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });
    const throttled = fakes({ apiDocs: () => Promise.reject(throttle) });
    await releaseCheckHook(throttled.clients, settingsOf(TARGETS_JSON, { checkDeadlineMs: 1_200 }))(EVENT);
    expect(throttled.reported).toEqual([reportOf('Failed')]);
    expect(logged()[0]).toMatchObject({ function: 'apiDocs', reason: "no answer by the check's deadline (1.2 s)" });
    expect(throttled.invoked.filter(({ functionName }) => functionName === 'apiDocs').length).toBeGreaterThan(2);

    lines = [];
    const denied = Object.assign(new Error('User is not authorized to perform: lambda:InvokeFunction'), {
      name: 'AccessDeniedException',
    });
    const refused = fakes({ listPets: () => Promise.reject(denied) });
    await releaseCheckHook(refused.clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(logged()[0]).toMatchObject({
      probe: nameOf('listPets'),
      reason: 'its invocation failed: AccessDeniedException: User is not authorized to perform: lambda:InvokeFunction',
    });
    // Once: the probe's request (a page of one) was sent one time.
    expect(
      refused.invoked.filter(
        ({ event }) => (event.queryStringParameters as Record<string, string> | null)?.limit === '1',
      ).length,
    ).toBe(1);
  });

  it("reads a function error from Lambda's error payload, and takes the authorizer's Unauthorized as the refusal it is", async () => {
    const { clients, reported } = fakes({
      createPet: () => unhandled('Runtime.ImportModuleError', "Error: Cannot find module '/var/task/index.mjs'"),
    });
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Failed')]);
    expect(
      logged()
        .filter((entry) => entry.msg === 'release check probe failed')
        .map((entry) => entry.reason),
    ).toEqual(["failed: Runtime.ImportModuleError: Error: Cannot find module '/var/task/index.mjs'"]);
  });

  it.each([
    ['unset', settingsOf(TARGETS_JSON, { releaseApiKeyId: undefined }), undefined, 'RELEASE_API_KEY_ID is not set'],
    [
      'deleted',
      settingsOf(TARGETS_JSON),
      () =>
        Promise.reject(Object.assign(new Error('Invalid API Key identifier specified'), { name: 'NotFoundException' })),
      `the release key ${RELEASE_API_KEY_ID} could not be read: NotFoundException: Invalid API Key identifier specified`,
    ],
    [
      'without its value',
      settingsOf(TARGETS_JSON),
      async () => ({ $metadata: {}, id: RELEASE_API_KEY_ID, enabled: true }),
      `the release key ${RELEASE_API_KEY_ID} came without its value`,
    ],
    [
      'disabled',
      settingsOf(TARGETS_JSON),
      async () => ({ $metadata: {}, id: RELEASE_API_KEY_ID, value: RELEASE_KEY, enabled: false }),
      `the release key ${RELEASE_API_KEY_ID} is disabled: enable it (docs/release-check.md)`,
    ],
  ] as const)(
    'reports Failed without invoking anything when the release key is %s',
    async (_case, settings, keyRead, reason) => {
      const { clients, invoked, reported, keyReads } = fakes({}, undefined, keyRead);
      await releaseCheckHook(clients, settings)(EVENT);
      expect([invoked, reported]).toEqual([[], [reportOf('Failed')]]);
      expect(keyReads.length).toBe(settings.releaseApiKeyId === undefined ? 0 : 1);
      expect(logged()).toEqual([
        {
          level: 'error',
          msg: 'release check',
          deploymentId: EVENT.DeploymentId,
          status: 'Failed',
          reason,
          versions: VERSIONS,
          probes: 0,
          failedProbes: 0,
          durationMs: 'number',
        },
      ]);
      expect(lines.filter((line) => line.includes(RELEASE_KEY))).toEqual([]);
    },
  );

  it("gives the key's read a deadline of its own: a read that does not answer fails the check, after no more", async () => {
    const never = (signal: AbortSignal) =>
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const { clients, invoked, reported } = fakes({}, undefined, never);
    const startedAt = performance.now();
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON, { keyReadDeadlineMs: 150 }))(EVENT);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect([invoked, reported]).toEqual([[], [reportOf('Failed')]]);
    expect(logged()[0]?.reason).toBe(
      `the release key ${RELEASE_API_KEY_ID} could not be read: TimeoutError: The operation was aborted due to timeout`,
    );
    expect(KEY_READ_DEADLINE_MS).toBe(40_000);
  });

  it("tries the key's read again while it is refused for want of the right (IAM applying the stack's new policy), until its deadline", async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: apigateway:GET'), {
      name: 'AccessDeniedException',
    });
    let reads = 0;
    const deniedOnce = fakes({}, undefined, async () => {
      reads += 1;
      if (reads === 1) throw denied;
      return { $metadata: {}, id: RELEASE_API_KEY_ID, value: RELEASE_KEY, enabled: true, createdDate: KEY_MADE };
    });
    await releaseCheckHook(deniedOnce.clients, settingsOf(TARGETS_JSON))(EVENT);
    expect([deniedOnce.reported, deniedOnce.keyReads.length, KEY_READ_RETRY_MS]).toEqual([
      [reportOf('Succeeded')],
      2,
      2_000,
    ]);

    lines = [];
    const deniedAlways = fakes({}, undefined, async () => {
      throw denied;
    });
    await releaseCheckHook(deniedAlways.clients, settingsOf(TARGETS_JSON, { keyReadDeadlineMs: 300 }))(EVENT);
    expect([deniedAlways.invoked, deniedAlways.reported, deniedAlways.keyReads.length]).toEqual([
      [],
      [reportOf('Failed')],
      1,
    ]);
    expect(logged()[0]?.reason).toBe(
      `the release key ${RELEASE_API_KEY_ID} could not be read: AccessDeniedException: User is not authorized to perform: apigateway:GET`,
    );
  });

  it("passes a new key's refusal by the authorizer (the first release with it), with a log line that says its Allow was not judged", async () => {
    const made = new Date(Date.now() - 5 * 60_000);
    const unauthorized = () =>
      ({ kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' }) as InvocationOutcome;
    const { clients, reported } = fakes(
      {},
      undefined,
      async () => ({ $metadata: {}, id: RELEASE_API_KEY_ID, value: RELEASE_KEY, enabled: true, createdDate: made }),
      { authorizer: unauthorized },
    );
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Succeeded')]);
    expect(logged()[0]).toEqual({
      level: 'warn',
      msg: 'release check step not judged',
      deploymentId: EVENT.DeploymentId,
      probe: WALK_STEPS[0]?.name,
      function: 'authorizer',
      note: 'the release key is new (made 5 min ago) and not in the registry yet: the authorizer refused it, its Allow was not judged',
    });
  });

  it("never logs the release key, even when a function's error message quotes it", async () => {
    const echoing = () =>
      ({ kind: 'functionError', errorType: 'Error', errorMessage: `no key ${RELEASE_KEY} here` }) as InvocationOutcome;
    const { clients, reported } = fakes({}, undefined, undefined, { authorizer: echoing });
    await releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT);
    expect(reported).toEqual([reportOf('Failed')]);
    expect(logged()[0]).toMatchObject({
      function: 'authorizer',
      reason: 'failed: Error: no key <the release key> here',
    });
    expect(lines.filter((line) => line.includes(RELEASE_KEY))).toEqual([]);
  });

  it.each([
    [undefined, 'RELEASE_CHECK_TARGETS is not set'],
    ['{', 'RELEASE_CHECK_TARGETS is not JSON'],
    ['[]', 'RELEASE_CHECK_TARGETS is not a JSON object'],
    [
      JSON.stringify({ ...TARGETS, keyMirror: arnOf('keyMirror', 1) }),
      'RELEASE_CHECK_TARGETS names functions the check has no probe for: keyMirror',
    ],
    [
      JSON.stringify({ ...TARGETS, getPet: undefined, apiDocs: undefined }),
      'RELEASE_CHECK_TARGETS gives no version of getPet, apiDocs',
    ],
    [
      JSON.stringify({
        ...TARGETS,
        listPets: arnOf('listPets', 1).replace(/:1$/, ':live'),
        authorizer: arnOf('authorizer', 1).replace(/:1$/, ''),
      }),
      'RELEASE_CHECK_TARGETS gives no qualified version ARN for listPets, authorizer',
    ],
    [JSON.stringify({ ...TARGETS, getPet: 7 }), 'RELEASE_CHECK_TARGETS gives no qualified version ARN for getPet'],
  ])('reports Failed without invoking anything when RELEASE_CHECK_TARGETS is %s: %s', async (json, reason) => {
    expect(readReleaseTargets(json)).toBe(reason);
    const { clients, invoked, reported } = fakes();
    await releaseCheckHook(clients, settingsOf(json))(EVENT);
    expect([invoked, reported]).toEqual([[], [reportOf('Failed')]]);
    expect(logged()).toEqual([
      {
        level: 'error',
        msg: 'release check',
        deploymentId: EVENT.DeploymentId,
        status: 'Failed',
        reason,
        probes: 0,
        failedProbes: 0,
        durationMs: 'number',
      },
    ]);
  });

  it('fails its invocation, after a log line, when the report does not go through (Lambda tries it again; CodeDeploy fails the hook if none does)', async () => {
    const { clients, reported } = fakes({}, () =>
      Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    );
    await expect(releaseCheckHook(clients, settingsOf(TARGETS_JSON))(EVENT)).rejects.toThrow('Rate exceeded');
    expect(reported).toEqual([reportOf('Succeeded')]);
    expect(logged().map(({ level, msg, status }) => [level, msg, status])).toEqual([
      ['info', 'release check', 'Succeeded'],
      ['error', 'release check not reported', 'Succeeded'],
    ]);
  });

  it('refuses to run for anything but a CodeDeploy lifecycle event: nothing invoked, nothing reported', async () => {
    const { clients, invoked, reported } = fakes();
    await expect(releaseCheckHook(clients, settingsOf(TARGETS_JSON))({ DeploymentId: 'd-1' } as never)).rejects.toThrow(
      'The release check runs as a CodeDeploy lifecycle hook only.',
    );
    expect([invoked, reported]).toEqual([[], []]);
  });

  it("checks the table's probes, written out for its bundle: the same as the drill's, in the same order", () => {
    expect(GENERATED.RELEASE_PROBES).toEqual(RELEASE_PROBES);
    expect(GENERATED.RELEASED_FUNCTIONS).toEqual(RELEASED_FUNCTIONS);
  });
});

describe('the release check function', () => {
  it('is declared as a function of no table and no secret, and checks every function a request reaches: each with a route, and the authorizer', () => {
    expect(FUNCTIONS.releaseCheck).toEqual({ handler: 'functions/releaseCheck/handler.ts', dynamodb: [] });
    const reached = FUNCTION_NAMES.filter(
      (name) => 'route' in FUNCTIONS[name] || 'routes' in FUNCTIONS[name] || name === 'authorizer',
    );
    expect(RELEASED_FUNCTIONS).toEqual(reached);
    // Every released function is probed; so is every operation.
    expect(new Set(PROBES.map(({ functionName }) => functionName))).toEqual(new Set(RELEASED_FUNCTIONS));
  });

  it("bundles no zod, no declaration, nothing of local/ or bench/, and no AWS client but Lambda's, CodeDeploy's and API Gateway's (the release key)", async () => {
    const result = await build({
      ...esbuildOptionsFor(join(root, FUNCTIONS.releaseCheck.handler), join(root, 'bench', '.build', 'unused.mjs')),
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter(
        (input) =>
          input.includes('node_modules/zod/') ||
          /^functions\/[^/]+\/operation\.ts$|^functions\/(table|operation-declaration)\.ts$|^bench\/|^local\//.test(
            input,
          ),
      ),
    ).toEqual([]);
    const clients = [
      ...new Set(
        inputs
          .map((input) => /node_modules\/@aws-sdk\/(client-[a-z-]+)\//.exec(input)?.[1])
          .filter((client) => client !== undefined),
      ),
    ].sort();
    expect(clients).toEqual(['client-api-gateway', 'client-codedeploy', 'client-lambda']);
  }, 60_000);
});
