import { stageArnOf } from '../auth/authorizer-contract';
import type { Principal } from '../auth/principal';
import { OPERATION_ROUTES } from '../http/routes';
import { PAGE_SIZE } from '../pets/fields';
import { judgeAnswer, judgeRefusal, oneLine, RELEASE_KEY_MARK, withoutSecret } from './answer-judgement';
import { petPageProblem } from './answer-shapes';
import { authorizerContextOf, CHECK_ADDRESS } from './check-identity';
import { authorizerEvent, proxyEvent } from './gateway-events';
import type { InvocationOutcome, Invoke } from './invocation';
import { judgeAllow, judgeCreated, judgeFetched, type WalkFunction } from './success-walk';

/**
 * The requests a prod release's canary gets besides its customers' (docs/releases.md#probes-during-the-canary):
 * at launch traffic a function's new version serves too few requests in a 5-minute period for its
 * gate to tell a version failing 2 % of them from a good one, so while a function's alias shifts, the
 * release prober (functions/releaseProber) sends that version the walk's requests every minute, as
 * the release principal in its own pet space: the release key to the authorizer (judged as the walk
 * judges it: an Allow), a create, a get of the pet created, the unfiltered listing's first page.
 * It counts, by function, the requests judged and those that failed, for the gates to add to what
 * they judge (infra/releases.ts). A 5XX answer is counted judged, not failed: the version's own
 * request metric counts it failed already (shared/http/request-metrics.ts), and a failure counts
 * once. What says nothing of the version (a throttle, the release key's own limits) is not judged.
 */

/**
 * The prober's deadlines: each control-plane read (the aliases, at once; then the release key) and
 * the rounds; its function's timeout (infra/pet-store-stack.ts) is their sum and 5 s.
 */
export const PROBER_READ_DEADLINE_MS = 5_000;
export const PROBER_ROUNDS_DEADLINE_MS = 40_000;
export const PROBER_TIMEOUT_SECONDS = (2 * PROBER_READ_DEADLINE_MS + PROBER_ROUNDS_DEADLINE_MS) / 1_000 + 5;

/**
 * Rounds a run (a minute) asks for, and the fewest requests to a shifting function a run must have
 * judged: fewer, and the run fails (functions/releaseProber), which the release's prober gate turns
 * into a rollback, so that the gates' arithmetic (infra/release-odds.ts) can count on 60 a minute.
 * The rounds asked are more, for a few requests not judged (a throttle, a create that failed
 * before its get), and never counted above 65.
 */
export const CANARY_ROUNDS_PER_MINUTE = 65;
export const CANARY_MIN_JUDGED_PER_MINUTE = 60;

/** The pets the probes create: in a status the walk's listing searches not (./success-walk.ts, WALK_PET). */
export const CANARY_PET = { name: 'Release probe', categoryId: 1, status: 'sold' } as const;

/**
 * One invocation's deadline: over what a version may take to answer on its own, a cold start's init
 * (Lambda's 10 s) and its timeout (10 s: infra/functions.ts), so that a version that never answers is
 * told from one that is slow: aborted at this deadline, it counts failed.
 */
export const CANARY_INVOCATION_DEADLINE_MS = 22_000;

/** What a version was sent and how it did. */
export interface CanaryTally {
  /** Requests judged: answered, or not by their deadline. */
  sent: number;
  /** Those that failed, but for 5XX answers, which the version's own metric counts (so each failure counts once). */
  failures: number;
  /** Requests not judged: throttled, Lambda unreachable, cut at the run's end, refused by the release key's own limits (429), or a new release key refused. */
  unjudged: number;
  /** The first few reasons of failures and of requests not judged, for the log. */
  readonly reasons: string[];
}

export interface CanaryProbeSetting {
  /** The functions whose alias is shifting to a new version: the only ones counted. */
  readonly shifting: ReadonlySet<WalkFunction>;
  /** The release principal (./check-identity.ts). */
  readonly principal: Principal;
  /** The release key, sent to the authorizer; never quoted. */
  readonly releaseKey: string;
  /** Made within the hour: the authorizer's refusal of it as an unknown key is not judged (./success-walk.ts, NEW_RELEASE_KEY_MS; notJudged below). */
  readonly releaseKeyIsNew: boolean;
  /** The service's time at the start. */
  readonly at: number;
  /** From when getPet answers 410 `gone`. */
  readonly getPetGoneFrom?: number | undefined;
  readonly rounds: number;
  /** The rounds end by then (ms from the start): an invocation still running is cut, not judged. */
  readonly budgetMs: number;
  readonly invocationDeadlineMs?: number;
}

const MAX_REASONS = 3;

/** The outcome of one request: an answer, or why there is none to judge the version by (`late`: no answer by its own deadline, which is the version's). */
type Sent = { readonly outcome: InvocationOutcome } | { readonly late: string } | { readonly unjudged: string };

/** Sends `rounds` rounds through `invoke` (each function's request to its new version, or to its live alias for a create that only getPet needs) and tallies them by function. Never throws. */
export async function runCanaryProbes(
  invoke: Invoke<WalkFunction>,
  setting: CanaryProbeSetting,
): Promise<Partial<Record<WalkFunction, CanaryTally>>> {
  const { shifting, principal, releaseKey, releaseKeyIsNew, at, getPetGoneFrom } = setting;
  const invocationDeadlineMs = setting.invocationDeadlineMs ?? CANARY_INVOCATION_DEADLINE_MS;
  const context = authorizerContextOf(principal);
  const base = { authorizer: context, sourceIp: CHECK_ADDRESS, arrivedAt: at } as const;
  const tallies: Partial<Record<WalkFunction, CanaryTally>> = {};
  const runEnd = AbortSignal.timeout(setting.budgetMs);

  const send = async (functionName: WalkFunction, event: unknown): Promise<Sent> => {
    if (runEnd.aborted) return { unjudged: "cut at the run's end" };
    const own = AbortSignal.timeout(invocationDeadlineMs);
    try {
      return { outcome: withoutSecret(await invoke(functionName, event, AbortSignal.any([own, runEnd])), releaseKey) };
    } catch (error) {
      if (own.aborted && !runEnd.aborted) return { late: `no answer within ${invocationDeadlineMs / 1000} s` };
      if (runEnd.aborted) return { unjudged: "cut at the run's end" };
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { unjudged: `its invocation failed: ${oneLine(message.replaceAll(releaseKey, RELEASE_KEY_MARK), 200)}` };
    }
  };
  /** Judges what was sent (a create even where createPet is not shifting: its pet is the get's), and counts it for a shifting function. */
  const tally = (
    functionName: WalkFunction,
    sent: Sent,
    judge: (outcome: InvocationOutcome) => string | undefined,
  ): void => {
    const outcome = 'outcome' in sent ? sent.outcome : undefined;
    const problem = outcome !== undefined ? judge(outcome) : 'late' in sent ? sent.late : undefined;
    if (!shifting.has(functionName)) return;
    const counted = tallies[functionName] ?? { sent: 0, failures: 0, unjudged: 0, reasons: [] };
    tallies[functionName] = counted;
    const note = (reason: string) => {
      if (counted.reasons.length < MAX_REASONS) counted.reasons.push(reason);
    };
    const unjudged =
      'unjudged' in sent
        ? sent.unjudged
        : outcome === undefined
          ? undefined
          : notJudged(functionName, outcome, releaseKeyIsNew);
    if (unjudged !== undefined) {
      counted.unjudged += 1;
      note(`not judged: ${unjudged}`);
      return;
    }
    counted.sent += 1;
    if (problem === undefined || (outcome !== undefined && answered5xx(outcome))) return;
    counted.failures += 1;
    note(problem);
  };

  // Three lanes at once, each its rounds one after the other: the authorizer; a create and the get
  // of its pet; the listing. So a slow function delays only its own lane.
  const lane = async (requests: (round: number) => Promise<void>): Promise<void> => {
    for (let round = 0; round < setting.rounds && !runEnd.aborted; round += 1) await requests(round);
  };
  const lanes: Promise<void>[] = [];
  if (shifting.has('authorizer')) {
    lanes.push(
      lane(async () => {
        const event = authorizerEvent({
          route: OPERATION_ROUTES.listPets,
          headers: { Authorization: `Bearer ${releaseKey}` },
          sourceIp: CHECK_ADDRESS,
          arrivedAt: at,
        });
        tally('authorizer', await send('authorizer', event), (outcome) =>
          judgeAllow(outcome, { context, releaseKey, stageArn: stageArnOf(event.methodArn) }),
        );
      }),
    );
  }
  if (shifting.has('createPet') || shifting.has('getPet')) {
    lanes.push(
      lane(async (round) => {
        const pet = { ...CANARY_PET, name: `${CANARY_PET.name} ${new Date(at).toISOString()} ${round + 1}` };
        let created: { readonly id: number } | undefined;
        tally(
          'createPet',
          await send(
            'createPet',
            proxyEvent({
              ...base,
              route: OPERATION_ROUTES.createPet,
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify(pet),
            }),
          ),
          (outcome) => {
            const judged = judgeCreated(outcome, pet);
            if (typeof judged === 'string') return judged;
            created = judged;
            return undefined;
          },
        );
        // A create's outcome is judged even when createPet is not shifting (it is only getPet's means): its pet is got only if it came.
        if (created !== undefined && shifting.has('getPet')) {
          const { id } = created;
          tally(
            'getPet',
            await send(
              'getPet',
              proxyEvent({ ...base, route: OPERATION_ROUTES.getPet, pathParameters: { petId: String(id) } }),
            ),
            (outcome) => judgeFetched(outcome, { ...pet, id }, getPetGoneFrom !== undefined && at >= getPetGoneFrom),
          );
        }
      }),
    );
  }
  if (shifting.has('listPets')) {
    lanes.push(
      lane(async () => {
        // The listing most customers read; never empty: the check's walk left a pet in this space before the canary began.
        tally(
          'listPets',
          await send('listPets', proxyEvent({ ...base, route: OPERATION_ROUTES.listPets })),
          (outcome) =>
            judgeAnswer(outcome, {
              status: 200,
              body: (body) =>
                petPageProblem(body, PAGE_SIZE.default) ??
                ((body as unknown[]).length === 0 ? "holds no pet, where the release's walk left one" : undefined),
            }),
        );
      }),
    );
  }
  await Promise.all(lanes);
  return tallies;
}

/**
 * Why an answer says nothing of the version: the release key's own limits (429: rate_limited,
 * key_suspended), or, for a new key, the authorizer's refusal of it: an unknown key, counted
 * against the check's address under the Free limits (60 a minute, 1,000 a day), is refused as
 * `Unauthorized` or, past them, with a 429's Deny (shared/auth/authorize.ts).
 */
function notJudged(
  functionName: WalkFunction,
  outcome: InvocationOutcome,
  releaseKeyIsNew: boolean,
): string | undefined {
  if (functionName === 'authorizer') {
    return releaseKeyIsNew && judgeRefusal(outcome) === undefined
      ? 'the release key is new and may not be in the registry yet: refused as an unknown key'
      : undefined;
  }
  return outcome.kind === 'returned' && (outcome.payload as { statusCode?: unknown } | null)?.statusCode === 429
    ? "answered 429: the release key's own limits"
    : undefined;
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
