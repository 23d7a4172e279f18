import type { Principal } from '../auth/principal';
import { API_BASE_PATH } from '../http/base-path';
import { OPERATION_ROUTES } from '../http/routes';
import { judgeAnswer, oneLine } from './answer-judgement';
import { petPageProblem, petProblem } from './answer-shapes';
import { authorizerContextOf, CHECK_ADDRESS } from './check-identity';
import { authorizerEvent, proxyEvent } from './gateway-events';
import type { InvocationOutcome, Invoke } from './invocation';
import { headerOf, judgeAllow, samePet, type WalkFunction } from './success-walk';
import { stageArnOf } from '../auth/authorizer-contract';

/**
 * The requests a prod release's canary gets besides its customers' (docs/releases.md#probes-during-the-canary):
 * at launch traffic a function's new version serves too few requests in a 5-minute period for its
 * gate to tell a version failing 2 % of them from a good one, so while a function's alias shifts, the
 * release prober (functions/releaseProber) sends that version the walk's requests every minute, as
 * the release principal in its own pet space: the release key to the authorizer (judged as the walk
 * judges it: an Allow), a create, a get of the pet created, a listing's first page. It counts, by
 * function, the requests sent and those that failed, for the gates to add to what they judge
 * (infra/releases.ts). A 5XX answer is counted sent, not failed: the version's own request metric
 * counts it failed already (shared/http/request-metrics.ts), and a failure counts once.
 */

/** Rounds a minute (a round: one request to each function shifting): the gates' arithmetic (infra/release-odds.ts) needs about this many at 50 requests a minute to the API. */
export const CANARY_ROUNDS_PER_MINUTE = 45;

/** The pets the probes create: in a status the walk's listing does not read (./success-walk.ts, WALK_PET). */
export const CANARY_PET = { name: 'Release probe', categoryId: 1, status: 'sold' } as const;

/** The listing's page: the default one, what most customers read. */
export const CANARY_LISTING_PAGE = 20;

/** One invocation's deadline: over a function's own timeout (10 s: infra/functions.ts), so that a version that hangs shows as its timeout, a failure. */
export const CANARY_INVOCATION_DEADLINE_MS = 12_000;

/** What a version was sent and how it did: `failures` are the failed requests that its own metrics do not count (all but its 5XX answers). */
export interface CanaryTally {
  sent: number;
  failures: number;
  /** The first few reasons, for the log. */
  readonly reasons: string[];
}

export interface CanaryProbeSetting {
  /** The functions whose alias is shifting to a new version: the only ones counted. */
  readonly shifting: ReadonlySet<WalkFunction>;
  /** The release principal (./check-identity.ts). */
  readonly principal: Principal;
  /** The release key, to send the authorizer; undefined when it is not to be probed (unreadable, or too new for the registry: ./success-walk.ts). */
  readonly releaseKey: string | undefined;
  /** The service's time at the start. */
  readonly at: number;
  /** From when getPet answers 410 `gone`. */
  readonly getPetGoneFrom?: number | undefined;
  readonly rounds: number;
  /** No round starts after this much time (ms) has passed. */
  readonly budgetMs: number;
  readonly invocationDeadlineMs?: number;
}

const MAX_REASONS = 3;

/** Sends `rounds` rounds through `invoke` (which sends each function's request to its new version, or to its live alias for a create that only getPet needs) and tallies them by function. Never throws. */
export async function runCanaryProbes(invoke: Invoke<WalkFunction>, setting: CanaryProbeSetting): Promise<Partial<Record<WalkFunction, CanaryTally>>> {
  const { shifting, principal, releaseKey, at, getPetGoneFrom } = setting;
  const invocationDeadlineMs = setting.invocationDeadlineMs ?? CANARY_INVOCATION_DEADLINE_MS;
  const context = authorizerContextOf(principal);
  const base = { authorizer: context, sourceIp: CHECK_ADDRESS, arrivedAt: at } as const;
  const tallies: Partial<Record<WalkFunction, CanaryTally>> = {};
  const endsAt = performance.now() + setting.budgetMs;

  /** Sends one request; its outcome, or undefined when the invocation itself failed (a throttle, Lambda unreachable): nothing to judge the version by. */
  const send = async (functionName: WalkFunction, event: unknown): Promise<InvocationOutcome | undefined> => {
    try {
      return await invoke(functionName, event, AbortSignal.timeout(invocationDeadlineMs));
    } catch {
      return undefined;
    }
  };
  const tally = (functionName: WalkFunction, outcome: InvocationOutcome, problem: string | undefined): void => {
    if (!shifting.has(functionName)) return;
    const counted = (tallies[functionName] ??= { sent: 0, failures: 0, reasons: [] });
    counted.sent += 1;
    if (problem === undefined || answered5xx(outcome)) return;
    counted.failures += 1;
    if (counted.reasons.length < MAX_REASONS) counted.reasons.push(releaseKey === undefined ? problem : problem.replaceAll(releaseKey, '<the release key>'));
  };

  const authorizerProbed = shifting.has('authorizer') && releaseKey !== undefined;
  const creating = shifting.has('createPet') || shifting.has('getPet');
  for (let round = 0; round < setting.rounds && performance.now() + invocationDeadlineMs <= endsAt; round += 1) {
    if (authorizerProbed) {
      const event = authorizerEvent({ route: OPERATION_ROUTES.listPets, headers: { Authorization: `Bearer ${releaseKey}` }, sourceIp: CHECK_ADDRESS, arrivedAt: at });
      const outcome = await send('authorizer', event);
      if (outcome !== undefined) tally('authorizer', outcome, judgeAllow(outcome, { context, releaseKey, stageArn: stageArnOf(event.methodArn) }));
    }
    let created: number | undefined;
    if (creating) {
      const pet = { ...CANARY_PET, name: `${CANARY_PET.name} ${new Date(at).toISOString()} ${round + 1}` };
      const outcome = await send('createPet', proxyEvent({ ...base, route: OPERATION_ROUTES.createPet, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pet) }));
      if (outcome !== undefined) {
        let id: number | undefined;
        const holdsThePet = (body: unknown): string | undefined => {
          if (petProblem(body) !== undefined || !samePet(body as Record<string, unknown>, pet)) return 'holds no pet, or another than the one sent';
          id = (body as { id: number }).id;
          return undefined;
        };
        const problem = judgeAnswer(outcome, { status: 201, body: holdsThePet }) ?? (headerOf(outcome, 'location') === `${API_BASE_PATH}/pets/${id}` ? undefined : 'answered 201 without the pet\'s Location');
        tally('createPet', outcome, problem);
        if (problem === undefined) created = id;
      }
      if (created !== undefined && shifting.has('getPet')) {
        const got = await send('getPet', proxyEvent({ ...base, route: OPERATION_ROUTES.getPet, pathParameters: { petId: String(created) } }));
        if (got !== undefined) {
          const gone = getPetGoneFrom !== undefined && at >= getPetGoneFrom;
          tally('getPet', got, gone ? judgeAnswer(got, { status: 410, code: 'gone' }) : judgeAnswer(got, { status: 200, body: (body) => (petProblem(body) === undefined && samePet(body as Record<string, unknown>, { ...pet, id: created }) ? undefined : 'is not the pet created') }));
        }
      }
    }
    if (shifting.has('listPets')) {
      const outcome = await send('listPets', proxyEvent({ ...base, route: OPERATION_ROUTES.listPets, query: { limit: String(CANARY_LISTING_PAGE) } }));
      if (outcome !== undefined) tally('listPets', outcome, judgeAnswer(outcome, { status: 200, body: (body) => petPageProblem(body, CANARY_LISTING_PAGE) }));
    }
  }
  return tallies;
}

/** A proxy result of 500 or more: the version's request metric counts it (its 5XX by version). */
function answered5xx(outcome: InvocationOutcome): boolean {
  if (outcome.kind !== 'returned') return false;
  const status = (outcome.payload as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 500;
}

/** A tally's reasons as one log field. */
export function reasonsOf(tally: CanaryTally): string {
  return tally.reasons.map((reason) => oneLine(reason, 300)).join('; ');
}
