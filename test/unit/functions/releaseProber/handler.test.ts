import type { GetApiKeyCommandOutput } from '@aws-sdk/client-api-gateway';
import type {
  GetAliasCommand,
  GetAliasCommandOutput,
  InvokeCommand,
  InvokeCommandOutput,
} from '@aws-sdk/client-lambda';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../../../functions/table';
import { esbuildOptionsFor } from '../../../../infra/bundling';
import { readProbedFunctions, releaseProber, type ProberClients } from '../../../../functions/releaseProber/handler';
import { setLogSink } from '../../../../shared/log';
import { CANARY_ROUNDS_PER_MINUTE } from '../../../../shared/release-check/canary-probes';
import type { InvocationOutcome } from '../../../../shared/release-check/invocation';
import { NEW_RELEASE_KEY_MS, WALK_FUNCTIONS, type WalkFunction } from '../../../../shared/release-check/success-walk';
import { RELEASE_KEY, walkService } from '../../../support/release-probes';

/**
 * The release prober (functions/releaseProber/handler.ts) with Lambda and API Gateway clients of the
 * test's own: which aliases it reads, which versions it invokes, what it logs and counts. What it
 * sends and how it judges: test/unit/shared/release-check/canary-probes.test.ts.
 */
const arnOf = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:PetStore-prod-${name}`;
const FUNCTIONS_JSON = JSON.stringify(Object.fromEntries(WALK_FUNCTIONS.map((name) => [name, arnOf(name)])));
const KEY_ID = 'a1b2c3d4e5';
const KEY_MADE = new Date(Date.UTC(2026, 10, 1));

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as InvokeCommandOutput['Payload'];
const asLambdaOutput = (outcome: InvocationOutcome): InvokeCommandOutput =>
  outcome.kind === 'returned'
    ? { $metadata: {}, StatusCode: 200, Payload: encode(outcome.payload) }
    : {
        $metadata: {},
        StatusCode: 200,
        FunctionError: 'Unhandled',
        Payload: encode({ errorType: outcome.errorType, errorMessage: outcome.errorMessage }),
      };

/** Aliases shifting to the versions given (the others not), versions answering as good ones do but for the functions given; the release key made long ago. */
function fakes(
  shifting: Partial<Record<WalkFunction, string>>,
  options: {
    answers?: Partial<Record<WalkFunction, () => InvocationOutcome | Promise<InvocationOutcome>>>;
    keyRead?: () => Promise<GetApiKeyCommandOutput>;
    aliasRead?: (name: string) => Promise<GetAliasCommandOutput>;
  } = {},
) {
  const service = walkService();
  // The pet the release's walk left before the canary began.
  service('createPet', { body: JSON.stringify({ name: 'Release check', categoryId: 1, status: 'pending' }) });
  const aliasReads: GetAliasCommand['input'][] = [];
  const invoked: string[] = [];
  let keyReads = 0;
  const clients: ProberClients = {
    aliases: {
      async send(command) {
        aliasReads.push(command.input);
        const name = WALK_FUNCTIONS.find(
          (candidate) => arnOf(candidate) === command.input.FunctionName,
        ) as WalkFunction;
        if (options.aliasRead !== undefined) return options.aliasRead(name);
        const version = shifting[name];
        return {
          $metadata: {},
          Name: 'live',
          FunctionVersion: '3',
          ...(version === undefined ? {} : { RoutingConfig: { AdditionalVersionWeights: { [version]: 0.25 } } }),
        };
      },
    },
    invoker: {
      async send(command: InvokeCommand) {
        const target = command.input.FunctionName as string;
        invoked.push(target);
        const name = WALK_FUNCTIONS.find((candidate) => target.startsWith(`${arnOf(candidate)}:`)) as WalkFunction;
        const event = JSON.parse(new TextDecoder().decode(command.input.Payload as Uint8Array));
        return asLambdaOutput((await options.answers?.[name]?.()) ?? service(name, event));
      },
    },
    apiGateway: {
      async send() {
        keyReads += 1;
        return (
          options.keyRead?.() ?? { $metadata: {}, id: KEY_ID, value: RELEASE_KEY, enabled: true, createdDate: KEY_MADE }
        );
      },
    },
  };
  return { clients, aliasReads, invoked, keyReads: () => keyReads };
}

let lines: string[] = [];
let restoreSink: () => void;
beforeEach(() => {
  lines = [];
  const previous = setLogSink((line) => lines.push(line));
  restoreSink = () => setLogSink(previous);
});
afterEach(() => restoreSink());
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, any>);

const run = (clients: ProberClients, rounds = 2, minJudged = rounds) =>
  releaseProber(clients, { functionsJson: FUNCTIONS_JSON, releaseApiKeyId: KEY_ID, rounds, minJudged })();

describe('the release prober', () => {
  it("between releases reads the four walked functions' live aliases and stops: no key read, no invocation, no line", async () => {
    const { clients, aliasReads, invoked, keyReads } = fakes({});
    await run(clients);
    expect(aliasReads).toEqual(WALK_FUNCTIONS.map((name) => ({ FunctionName: arnOf(name), Name: 'live' })));
    expect([invoked, keyReads(), lines]).toEqual([[], 0, []]);
  });

  it("while aliases shift, invokes their new versions (and createPet's live alias for a get's pet), and writes each one's counts as metrics by function and version", async () => {
    const { clients, invoked } = fakes({ getPet: '8', authorizer: '5' });
    await run(clients);
    // Its lanes run at once: by lane, in order.
    expect(invoked.filter((target) => target.startsWith(arnOf('authorizer')))).toEqual([
      `${arnOf('authorizer')}:5`,
      `${arnOf('authorizer')}:5`,
    ]);
    expect(invoked.filter((target) => !target.startsWith(arnOf('authorizer')))).toEqual(
      [1, 2].flatMap(() => [`${arnOf('createPet')}:live`, `${arnOf('getPet')}:8`]),
    );
    const [authorizer, getPet, ...others] = logged();
    expect(others).toEqual([]);
    expect(authorizer).toMatchObject({
      level: 'info',
      msg: 'canary probes',
      function: 'authorizer',
      version: '5',
      sent: 2,
      failed: 0,
      unjudged: 0,
      CanaryProbes: 2,
      FailedCanaryProbes: 0,
    });
    expect(getPet).toMatchObject({ function: 'getPet', version: '8', CanaryProbes: 2, FailedCanaryProbes: 0 });
    // CloudWatch's embedded metric format: the stage's namespace, by function and version.
    expect(getPet?._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'PetStore/local',
        Dimensions: [['function', 'version']],
        Metrics: [
          { Name: 'CanaryProbes', Unit: 'Count' },
          { Name: 'FailedCanaryProbes', Unit: 'Count' },
        ],
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(RELEASE_KEY);
  });

  it("sends 65 rounds a run by default, and fails a run that judged fewer than 60 requests of a shifting function (the prober's gate rolls the release back), after writing its counts", async () => {
    const { clients, invoked } = fakes({ listPets: '4' });
    await releaseProber(clients, { functionsJson: FUNCTIONS_JSON, releaseApiKeyId: KEY_ID })();
    expect([invoked.length, CANARY_ROUNDS_PER_MINUTE]).toEqual([65, 65]);
    // Throttled from the 61st on (not tried again: a throttle says nothing of the version): 60 judged, enough.
    let calls = 0;
    const throttle = () => {
      calls += 1;
      return calls > 60
        ? Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }))
        : undefined;
    };
    const throttled = fakes({ listPets: '4' }, { answers: { listPets: throttle as never } });
    await releaseProber(throttled.clients, { functionsJson: FUNCTIONS_JSON, releaseApiKeyId: KEY_ID })();
    expect(throttled.invoked).toHaveLength(65);
    expect(logged().at(-1)).toMatchObject({ function: 'listPets', sent: 60, unjudged: 5, CanaryProbes: 60 });
    // One more throttled: 59 judged, too few.
    calls = 1;
    lines = [];
    await expect(
      releaseProber(throttled.clients, { functionsJson: FUNCTIONS_JSON, releaseApiKeyId: KEY_ID })(),
    ).rejects.toThrow(
      'The canary was probed too little: requests judged listPets 59, of the 60 a minute the gates count on (docs/releases.md#probes-during-the-canary)',
    );
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'warn',
        function: 'listPets',
        sent: 59,
        unjudged: 6,
        CanaryProbes: 59,
        FailedCanaryProbes: 0,
      }),
    ]);
  });

  it("reads an alias that does not exist yet (a stage's first deploy) as not shifting", async () => {
    const { clients, invoked } = fakes(
      {},
      {
        aliasRead: async () =>
          Promise.reject(Object.assign(new Error('Alias not found'), { name: 'ResourceNotFoundException' })),
      },
    );
    await run(clients);
    expect([invoked, lines]).toEqual([[], []]);
  });

  it("logs the failures' reasons at warn, never the key", async () => {
    const { clients } = fakes(
      { authorizer: '5' },
      {
        answers: {
          authorizer: () => ({
            kind: 'functionError',
            errorType: 'Error',
            errorMessage: `Unauthorized ${RELEASE_KEY}`,
          }),
        },
      },
    );
    await run(clients);
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'warn',
        function: 'authorizer',
        sent: 2,
        failed: 2,
        reasons: 'failed: Error: Unauthorized <the release key>; failed: Error: Unauthorized <the release key>',
        FailedCanaryProbes: 2,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(RELEASE_KEY);
  });

  it("does not judge the authorizer's Unauthorized while the release key is under an hour old (it may not be in the registry yet), and asks no minimum of it then", async () => {
    const made = new Date(Date.now() - NEW_RELEASE_KEY_MS + 60_000);
    const keyRead = async () => ({ $metadata: {}, id: KEY_ID, value: RELEASE_KEY, enabled: true, createdDate: made });
    const refused = fakes(
      { authorizer: '5', listPets: '4' },
      {
        keyRead,
        answers: { authorizer: () => ({ kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' }) },
      },
    );
    await run(refused.clients);
    expect(
      logged().map(({ level, function: name, sent, unjudged, FailedCanaryProbes }) => [
        level,
        name,
        sent,
        unjudged,
        FailedCanaryProbes,
      ]),
    ).toEqual([
      ['warn', 'authorizer', 0, 2, 0],
      ['info', 'listPets', 2, 0, 0],
    ]);
    // Made over an hour ago: a refusal counts failed.
    lines = [];
    await run(
      fakes(
        { authorizer: '5' },
        {
          answers: { authorizer: () => ({ kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' }) },
        },
      ).clients,
    );
    expect(logged()).toEqual([
      expect.objectContaining({ function: 'authorizer', sent: 2, failed: 2, FailedCanaryProbes: 2 }),
    ]);
  });

  it('fails the run (its error alarm) when an alias or the release key cannot be read, or its settings are unusable; no message holds the key', async () => {
    const aliasDenied = fakes(
      {},
      {
        aliasRead: async () =>
          Promise.reject(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' })),
      },
    );
    await expect(run(aliasDenied.clients)).rejects.toThrow('not authorized');
    const keyless = fakes({ createPet: '9' }, { keyRead: async () => ({ $metadata: {}, id: KEY_ID, enabled: true }) });
    await expect(run(keyless.clients)).rejects.toThrow(
      `The canary cannot be probed: the release key ${KEY_ID} came without its value`,
    );
    expect(keyless.invoked).toEqual([]);
    await expect(
      releaseProber(fakes({}).clients, { functionsJson: undefined, releaseApiKeyId: KEY_ID })(),
    ).rejects.toThrow('CANARY_PROBE_FUNCTIONS is not set, or not JSON');
    expect(() =>
      readProbedFunctions(
        JSON.stringify({ authorizer: arnOf('authorizer'), createPet: `${arnOf('createPet')}:7`, getPet: 3 }),
      ),
    ).toThrow('CANARY_PROBE_FUNCTIONS gives no function ARN for createPet, getPet, listPets');
    expect(readProbedFunctions(FUNCTIONS_JSON)).toEqual(JSON.parse(FUNCTIONS_JSON));
  });
});

describe('the release prober function', () => {
  it('is declared as a function of no table and no secret', () => {
    expect(FUNCTIONS.releaseProber).toEqual({ handler: 'functions/releaseProber/handler.ts', dynamodb: [] });
  });

  it("bundles no zod, no declaration, nothing of local/ or bench/, and no AWS client but Lambda's and API Gateway's (the release key)", async () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    const result = await build({
      ...esbuildOptionsFor(join(root, FUNCTIONS.releaseProber.handler), join(root, 'bench', '.build', 'unused.mjs')),
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
    expect(clients).toEqual(['client-api-gateway', 'client-lambda']);
  }, 60_000);
});
