import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { GetAliasCommand, LambdaClient, type GetAliasCommandOutput } from '@aws-sdk/client-lambda';
import { now } from '../../shared/clock';
import { config } from '../../shared/config';
import { LIVE_ALIAS } from '../../shared/live-alias';
import { writeLog } from '../../shared/log';
import { CANARY_PROBE_DIMENSIONS, canaryProbeMetricMembers } from '../../shared/release-check/canary-probe-metrics';
import {
  CANARY_MIN_JUDGED_PER_MINUTE,
  CANARY_ROUNDS_PER_MINUTE,
  PROBER_READ_DEADLINE_MS,
  PROBER_ROUNDS_DEADLINE_MS,
  reasonsOf,
  runCanaryProbes,
} from '../../shared/release-check/canary-probes';
import { releasePrincipal } from '../../shared/release-check/check-identity';
import { sunsetOf } from '../../shared/release-check/probes';
import { readReleaseKey, type ApiKeyReader } from '../../shared/release-check/release-key-reader';
import { NEW_RELEASE_KEY_MS, WALK_FUNCTIONS, type WalkFunction } from '../../shared/release-check/success-walk';
import { invokeVersions, type LambdaInvoker } from '../../shared/release-check/version-invoker';
import { RELEASE_PROBES } from '../releaseCheck/probes.generated';

/**
 * The release prober, run every minute by a schedule in a stage whose releases are gradual (prod):
 * reads each walked function's `live` alias; when one is shifting to a new version (CodeDeploy's
 * canary: `AdditionalVersionWeights`), sends that version the walk's requests, 65 rounds a minute,
 * as the release principal (shared/release-check/canary-probes.ts), and writes what it judged and
 * what failed as metrics, by function and version, which the version's gate adds to what it judges
 * (infra/releases.ts, docs/releases.md#probes-during-the-canary). Between releases it reads four
 * aliases and stops. A run that cannot read an alias or the release key, or that judged fewer than
 * 60 requests of a shifting function, throws: the prober's gate rolls the release back.
 */

/** The calls the prober makes (the clients below; the tests give their own). */
export interface ProberClients {
  readonly aliases: {
    send(command: GetAliasCommand, options: { abortSignal: AbortSignal }): Promise<GetAliasCommandOutput>;
  };
  readonly invoker: LambdaInvoker;
  readonly apiGateway: ApiKeyReader;
}

export interface ProberSettings {
  /** CANARY_PROBE_FUNCTIONS: the walked functions' ARNs (unqualified), by name. */
  readonly functionsJson: string | undefined;
  readonly releaseApiKeyId: string | undefined;
  /** Fewer in tests. */
  readonly rounds?: number;
  readonly minJudged?: number;
  readonly budgetMs?: number;
}

export function releaseProber(clients: ProberClients, settings: ProberSettings) {
  return async (): Promise<void> => {
    const functions = readProbedFunctions(settings.functionsJson);
    const shiftingTo: Partial<Record<WalkFunction, string>> = {};
    await Promise.all(
      WALK_FUNCTIONS.map(async (name) => {
        const alias = await readAlias(clients.aliases, functions[name]);
        const [version] = Object.keys(alias?.RoutingConfig?.AdditionalVersionWeights ?? {});
        if (version !== undefined) shiftingTo[name] = version;
      }),
    );
    const shifting = new Set(Object.keys(shiftingTo) as WalkFunction[]);
    if (shifting.size === 0) return;

    const at = now();
    const key = await readReleaseKey(clients.apiGateway, settings.releaseApiKeyId, PROBER_READ_DEADLINE_MS);
    if (!key.ok) throw new Error(`The canary cannot be probed: ${key.problem}`);
    // A new key may not be in the registry yet (shared/release-check/success-walk.ts): the authorizer's refusal of it is not judged.
    const releaseKeyIsNew = key.createdAt !== undefined && at - key.createdAt < NEW_RELEASE_KEY_MS;
    const targets = Object.fromEntries(
      WALK_FUNCTIONS.map((name) => [name, `${functions[name]}:${shiftingTo[name] ?? LIVE_ALIAS}`]),
    ) as Record<WalkFunction, string>;
    const tallies = await runCanaryProbes(invokeVersions(clients.invoker, targets, { retryThrottled: false }), {
      shifting,
      principal: releasePrincipal(key.value),
      releaseKey: key.value,
      releaseKeyIsNew,
      at,
      getPetGoneFrom: sunsetOf(RELEASE_PROBES, 'getPet'),
      rounds: settings.rounds ?? CANARY_ROUNDS_PER_MINUTE,
      budgetMs: settings.budgetMs ?? PROBER_ROUNDS_DEADLINE_MS,
    });
    const short: string[] = [];
    for (const name of shifting) {
      const tally = tallies[name] ?? { sent: 0, failures: 0, unjudged: 0, reasons: [] };
      const troubled = tally.failures > 0 || tally.unjudged > 0;
      writeLog(
        {
          level: troubled ? 'warn' : 'info',
          msg: 'canary probes',
          function: name,
          version: shiftingTo[name],
          sent: tally.sent,
          failed: tally.failures,
          unjudged: tally.unjudged,
          ...(troubled ? { reasons: reasonsOf(tally) } : {}),
        },
        canaryProbeMetricMembers(tally.sent, tally.failures, Date.now()),
        [CANARY_PROBE_DIMENSIONS.function, CANARY_PROBE_DIMENSIONS.version],
      );
      // The authorizer's requests are not judged while the key is new: no minimum then.
      const minimum =
        name === 'authorizer' && releaseKeyIsNew ? 0 : (settings.minJudged ?? CANARY_MIN_JUDGED_PER_MINUTE);
      if (tally.sent < minimum) short.push(`${name} ${tally.sent}`);
    }
    // Too few judged: the gates cannot count on their arithmetic, so the run fails and the prober's gate rolls the release back.
    if (short.length > 0)
      throw new Error(
        `The canary was probed too little: requests judged ${short.join(', ')}, of the ${settings.minJudged ?? CANARY_MIN_JUDGED_PER_MINUTE} a minute the gates count on (docs/releases.md#probes-during-the-canary)`,
      );
  };
}

/** A function's `live` alias; undefined while it does not exist yet (a stage's first deploy makes the prober's schedule before the aliases). */
async function readAlias(
  aliases: ProberClients['aliases'],
  functionArn: string,
): Promise<GetAliasCommandOutput | undefined> {
  try {
    return await aliases.send(new GetAliasCommand({ FunctionName: functionArn, Name: LIVE_ALIAS }), {
      abortSignal: AbortSignal.timeout(PROBER_READ_DEADLINE_MS),
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/** A function's ARN, unqualified: `arn:aws:lambda:eu-west-1:123456789012:function:name`. */
const FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}$/;

/** CANARY_PROBE_FUNCTIONS, or an error that says why it is unusable. */
export function readProbedFunctions(json: string | undefined): Readonly<Record<WalkFunction, string>> {
  let given: unknown;
  try {
    given = JSON.parse(json ?? '');
  } catch {
    throw new Error('CANARY_PROBE_FUNCTIONS is not set, or not JSON');
  }
  const arns = (typeof given === 'object' && given !== null ? given : {}) as Record<string, unknown>;
  const unusable = WALK_FUNCTIONS.filter((name) => typeof arns[name] !== 'string' || !FUNCTION_ARN.test(arns[name]));
  if (unusable.length > 0) throw new Error(`CANARY_PROBE_FUNCTIONS gives no function ARN for ${unusable.join(', ')}`);
  return arns as Record<WalkFunction, string>;
}

// Every call has a deadline. The reads: 5 s each, the SDK trying a transient error again within
// it (a run that fails counts against the release: infra/release-prober.ts). The invocations: their
// own (22 s, canary-probes.ts), tried once: an SDK retry would send a create twice, and a
// throttle is not judged.
const reads = new LambdaClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
});
const invocations = new LambdaClient({
  maxAttempts: 1,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 25_000, throwOnRequestTimeout: true },
});
const apiGateway = new APIGatewayClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
});

export const handler = releaseProber(
  { aliases: reads, invoker: invocations, apiGateway },
  { functionsJson: config.canaryProbeFunctions, releaseApiKeyId: config.releaseApiKeyId },
);
