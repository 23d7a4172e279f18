import { AUTHORIZER_UNAUTHORIZED, stageArnOf } from '../auth/authorizer-contract';
import type { Principal } from '../auth/principal';
import { API_BASE_PATH } from '../http/base-path';
import { OPERATION_ROUTES } from '../http/routes';
import { PAGE_SIZE } from '../pets/fields';
import { LISTING_SETTLE_MS } from '../pets/pet-ids';
import { functionFailure, judgeAnswer } from './answer-judgement';
import { petPageProblem, petProblem } from './answer-shapes';
import { authorizerContextOf, CHECK_ADDRESS } from './check-identity';
import { authorizerEvent, proxyEvent } from './gateway-events';
import type { InvocationOutcome } from './invocation';
import { pause } from '../abortable-pause';

/**
 * The success paths a customer takes, walked by the release principal (./check-identity.ts) in
 * its own pet space, one step after the other: the authorizer allows the release key; a create
 * answers 201 with the pet; a get of that pet answers 200 with it; a listing finds it. Each step
 * is judged as a probe is (./answer-judgement.ts); the first that fails ends the walk, and the
 * steps after it fail unrun. What it writes: one pet in the releases' space, which expires by
 * itself (shared/pets/pet-space.ts), and its principal's counts.
 */

/** The functions the walk goes through: a release moves them all (functions/table.ts). */
export const WALK_FUNCTIONS = ['authorizer', 'createPet', 'getPet', 'listPets'] as const;
export type WalkFunction = (typeof WALK_FUNCTIONS)[number];

/**
 * How long after its creation the release key may still be unknown to the registry. On a stage's
 * first release with it, CloudFormation puts the key in its plan, and the key mirror's new version
 * (which knows it) goes live, only after the released aliases have moved, so after this check
 * (infra/release-key.ts): the authorizer cannot know the key yet. Until the key is this old, an
 * authorizer that answers it `Unauthorized` passes the step, with a note that says so; after, a
 * refusal fails at once (the mirror copies a key within a minute of its joining a plan). A prod
 * release's canary lasts 30 minutes: an hour covers that first release and its stack update.
 */
export const NEW_RELEASE_KEY_MS = 60 * 60_000;
/** Between two walks through the listing. */
export const RETRY_EVERY_MS = 3_000;
/** Before the first listing: the listing's settle time (a pet shows once its id is 800 ms old), and a margin. */
export const LISTING_SETTLE_WAIT_MS = LISTING_SETTLE_MS + 100;
/** How long after that the listing may take to show the pet: the index's lag, a cached first page (half a second), with a wide margin. */
export const LISTING_WAIT_MS = 10_000;
/** A listing's page, and the pages a walk through it reads at most (earlier releases' pets stay until TTL deletes them). */
export const LISTING_PAGE = 100;
export const LISTING_MAX_PAGES = 20;

/**
 * The pet the walk creates (each walk's is a new one, with its own id), and lists by its status:
 * the canary's probes create theirs in another status (./canary-probes.ts), so the walk's listing
 * reads only the walks' pets, a few a release, however many the canaries made before TTL deletes them.
 */
export const WALK_PET = { name: 'Release check', categoryId: 1, status: 'pending' } as const;

/** What a step sends its function: an invocation, which rejects only when the invocation itself failed. */
export type Send = (event: unknown) => Promise<InvocationOutcome>;

/** A step's (or a probe's) verdict: undefined when it passed, the reason when it failed, or a pass with a note of what was not judged. */
export type Verdict = undefined | string | { readonly note: string };

export interface WalkStep {
  readonly name: string;
  readonly functionName: WalkFunction;
  /** Longer than a probe's for the step that waits (the listing). */
  readonly extraMs: number;
  /** `signal` aborts at the step's deadline. */
  run(send: Send, signal: AbortSignal): Promise<Verdict>;
}

export interface WalkSetting {
  /** The release key, as its client sends it. */
  readonly releaseKey: string;
  /** Its principal (./check-identity.ts, releasePrincipal). */
  readonly principal: Principal;
  /** The service's time at the start. */
  readonly at: number;
  /** When API Gateway made the release key (ms since the epoch); undefined when it is in the registry already (the drill's). */
  readonly releaseKeyCreatedAt?: number | undefined;
  /** From when getPet answers 410 `gone` (its deprecation's sunset), if it has one. */
  readonly getPetGoneFrom?: number | undefined;
  /** The waits, shorter in tests. */
  readonly retryEveryMs?: number;
  readonly listingWaitMs?: number;
  readonly listingSettleWaitMs?: number;
}

/** The walk's steps, in order; each after the first reads what the one before it found. */
export function successWalk(setting: WalkSetting): readonly WalkStep[] {
  const { releaseKey, principal, at, getPetGoneFrom, releaseKeyCreatedAt } = setting;
  const retryEveryMs = setting.retryEveryMs ?? RETRY_EVERY_MS;
  const listingWaitMs = setting.listingWaitMs ?? LISTING_WAIT_MS;
  const listingSettleWaitMs = setting.listingSettleWaitMs ?? LISTING_SETTLE_WAIT_MS;
  const context = authorizerContextOf(principal);
  const base = { authorizer: context, sourceIp: CHECK_ADDRESS, arrivedAt: at } as const;
  const walkPet = { ...WALK_PET, name: `${WALK_PET.name} ${new Date(at).toISOString()}` };
  let created: { readonly id: number } | undefined;

  const authorize: WalkStep = {
    name: `authorizer: ${OPERATION_ROUTES.listPets.method} ${API_BASE_PATH}${OPERATION_ROUTES.listPets.path} with the release key`,
    functionName: 'authorizer',
    extraMs: 0,
    run: async (send) => {
      const event = authorizerEvent({
        route: OPERATION_ROUTES.listPets,
        headers: { Authorization: `Bearer ${releaseKey}` },
        sourceIp: CHECK_ADDRESS,
        arrivedAt: at,
      });
      const outcome = await send(event);
      if (outcome.kind !== 'functionError' || outcome.errorMessage !== AUTHORIZER_UNAUTHORIZED)
        return judgeAllow(outcome, { context, releaseKey, stageArn: stageArnOf(event.methodArn) });
      const age = releaseKeyCreatedAt === undefined ? undefined : at - releaseKeyCreatedAt;
      if (age === undefined || age >= NEW_RELEASE_KEY_MS) return 'refused the release key (Unauthorized)';
      return {
        note: `the release key is new (made ${Math.max(0, Math.round(age / 60_000))} min ago) and not in the registry yet: the authorizer refused it, its Allow was not judged`,
      };
    },
  };

  const create: WalkStep = {
    name: `createPet: ${OPERATION_ROUTES.createPet.method} ${API_BASE_PATH}${OPERATION_ROUTES.createPet.path} (a pet of the release's own)`,
    functionName: 'createPet',
    extraMs: 0,
    run: async (send) => {
      const judged = judgeCreated(
        await send(
          proxyEvent({
            ...base,
            route: OPERATION_ROUTES.createPet,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(walkPet),
          }),
        ),
        walkPet,
      );
      if (typeof judged === 'string') return judged;
      created = judged;
      return undefined;
    },
  };

  const get: WalkStep = {
    name: `getPet: ${OPERATION_ROUTES.getPet.method} ${API_BASE_PATH}${OPERATION_ROUTES.getPet.path} (the pet created)`,
    functionName: 'getPet',
    extraMs: 0,
    run: async (send) => {
      const { id } = created as { id: number };
      const outcome = await send(
        proxyEvent({ ...base, route: OPERATION_ROUTES.getPet, pathParameters: { petId: String(id) } }),
      );
      return judgeFetched(outcome, { ...walkPet, id }, getPetGoneFrom !== undefined && at >= getPetGoneFrom);
    },
  };

  /** The status listing's pages from the first, until the pet shows: found, or how many pets it listed without it, or the answer's problem. */
  const searchByStatus = async (
    send: Send,
    id: number,
  ): Promise<{ readonly found: boolean; readonly seen: number } | string> => {
    let cursor: string | undefined;
    let seen = 0;
    for (let page = 0; page < LISTING_MAX_PAGES; page += 1) {
      const query: Record<string, string> = {
        status: WALK_PET.status,
        limit: String(LISTING_PAGE),
        ...(cursor === undefined ? {} : { cursor }),
      };
      const outcome = await send(proxyEvent({ ...base, route: OPERATION_ROUTES.listPets, query }));
      let pets: readonly { id: number }[] = [];
      const problem = judgeAnswer(outcome, {
        status: 200,
        body: (body) => {
          const shape = petPageProblem(body, LISTING_PAGE);
          pets = shape === undefined ? (body as { id: number }[]) : [];
          return shape;
        },
      });
      if (problem !== undefined) return problem;
      if (pets.some((pet) => pet.id === id)) return { found: true, seen };
      seen += pets.length;
      cursor = nextCursorOf(headerOf(outcome, 'link'));
      if (cursor === undefined) break;
    }
    return { found: false, seen };
  };
  /** The listing most customers read, `GET /pets` (no filter, the default page): how many pets it shows, or the answer's problem. */
  const firstPage = async (send: Send): Promise<number | string> => {
    let count = 0;
    const problem = judgeAnswer(await send(proxyEvent({ ...base, route: OPERATION_ROUTES.listPets })), {
      status: 200,
      body: (body) => {
        const shape = petPageProblem(body, PAGE_SIZE.default);
        count = shape === undefined ? (body as unknown[]).length : 0;
        return shape;
      },
    });
    return problem === undefined
      ? count
      : `${problem} (${OPERATION_ROUTES.listPets.method} ${API_BASE_PATH}${OPERATION_ROUTES.listPets.path}, no filter)`;
  };

  const list: WalkStep = {
    name: `listPets: ${OPERATION_ROUTES.listPets.method} ${API_BASE_PATH}${OPERATION_ROUTES.listPets.path}?status=${WALK_PET.status}&limit=${LISTING_PAGE}, page after page (until the pet created shows), then ${API_BASE_PATH}${OPERATION_ROUTES.listPets.path} (not empty)`,
    functionName: 'listPets',
    extraMs: listingSettleWaitMs + listingWaitMs,
    run: async (send, signal) => {
      const { id } = created as { id: number };
      await pause(listingSettleWaitMs, signal);
      const until = performance.now() + listingWaitMs;
      for (;;) {
        const search = await searchByStatus(send, id);
        if (typeof search === 'string') return search;
        let missing = `listed ${search.seen} pets without the pet created, for ${listingWaitMs / 1000} s`;
        if (search.found) {
          // The unfiltered listing, on its own index: it must show a pet too, since the one created is there.
          const shown = await firstPage(send);
          if (typeof shown === 'string') return shown;
          if (shown > 0) return undefined;
          missing = `listed no pet without a status filter, where the pet created is, for ${listingWaitMs / 1000} s`;
        }
        if (performance.now() + retryEveryMs > until || signal.aborted) return missing;
        await pause(retryEveryMs, signal);
      }
    },
  };

  return [authorize, create, get, list];
}

/** A create's answer: 201 with the pet sent (and its id) and the pet's `Location`; its id, or the reason it is not that. */
export function judgeCreated(
  outcome: InvocationOutcome,
  sent: Readonly<Record<string, unknown>>,
): { readonly id: number } | string {
  let pet: Record<string, unknown> | undefined;
  const problem = judgeAnswer(outcome, {
    status: 201,
    body: (body) => {
      const shape = petProblem(body);
      if (shape !== undefined) return `holds no pet: it ${shape}`;
      pet = body as Record<string, unknown>;
      return samePet(pet, sent) ? undefined : 'holds a pet other than the one sent';
    },
  });
  if (problem !== undefined) return problem;
  const id = (pet as { id: number }).id;
  if (headerOf(outcome, 'location') !== `${API_BASE_PATH}/pets/${id}`) return "answered 201 without the pet's Location";
  return { id };
}

/** A get's answer for the pet created: 200 with that very pet, or 410 `gone` once getPet's sunset has passed. */
export function judgeFetched(
  outcome: InvocationOutcome,
  pet: Readonly<Record<string, unknown>>,
  gone: boolean,
): string | undefined {
  if (gone) return judgeAnswer(outcome, { status: 410, code: 'gone' });
  return judgeAnswer(outcome, {
    status: 200,
    body: (body) =>
      petProblem(body) === undefined && samePet(body as Record<string, unknown>, pet)
        ? undefined
        : 'is not the pet created',
  });
}

/**
 * The authorizer's Allow of the release key, as API Gateway needs it to serve the request: one
 * statement allowing `execute-api:Invoke` on every method of the stage (the answer is cached across
 * methods), the key as the usage identifier (the usage plans meter it; without it API Gateway
 * answers 403), its principal (the key id), and the release principal's context. The reasons never
 * quote the key.
 */
export function judgeAllow(
  outcome: InvocationOutcome,
  expected: {
    readonly context: Readonly<Record<string, string>>;
    readonly releaseKey: string;
    readonly stageArn: string;
  },
): string | undefined {
  const { context, releaseKey, stageArn } = expected;
  if (outcome.kind === 'functionError') return functionFailure(outcome);
  const answer = outcome.payload as {
    principalId?: unknown;
    usageIdentifierKey?: unknown;
    policyDocument?: { Statement?: unknown };
    context?: unknown;
  } | null;
  const statements = Array.isArray(answer?.policyDocument?.Statement)
    ? (answer.policyDocument.Statement as { Effect?: unknown; Action?: unknown; Resource?: unknown }[])
    : [];
  if (statements.length === 0 || statements.some((statement) => statement?.Effect !== 'Allow'))
    return 'did not allow the release key';
  const [statement] = statements;
  if (statements.length !== 1 || statement?.Action !== 'execute-api:Invoke' || statement.Resource !== `${stageArn}/*/*`)
    return 'allowed the release key, but not to invoke every method of the stage';
  if (answer?.usageIdentifierKey !== releaseKey)
    return 'allowed the release key without it as the usage identifier (API Gateway would answer 403)';
  if (answer?.principalId !== context.principalId) return 'allowed the release key as another principal';
  const given = (answer?.context ?? {}) as Record<string, unknown>;
  const { principalId: _principal, ...passedOn } = context;
  const same =
    Object.keys(given).length === Object.keys(passedOn).length &&
    Object.entries(passedOn).every(([name, value]) => String(given[name]) === value);
  return same
    ? undefined
    : 'allowed the release key without the release principal in its context (plan, limits, pet space)';
}

export function samePet(pet: Readonly<Record<string, unknown>>, sent: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(sent).every(([name, value]) => pet[name] === value);
}

/** A header of a proxy result, by its name in any case (the first value). */
export function headerOf(outcome: InvocationOutcome, name: string): string | undefined {
  if (outcome.kind !== 'returned') return undefined;
  const { headers, multiValueHeaders } = (outcome.payload ?? {}) as {
    headers?: Record<string, unknown>;
    multiValueHeaders?: Record<string, unknown[]>;
  };
  const single = Object.entries(headers ?? {}).find(([header]) => header.toLowerCase() === name)?.[1];
  if (typeof single === 'string') return single;
  const multiple = Object.entries(multiValueHeaders ?? {}).find(([header]) => header.toLowerCase() === name)?.[1]?.[0];
  return typeof multiple === 'string' ? multiple : undefined;
}

/** The cursor of a `Link: <…?limit=100&cursor=…>; rel="next"`. */
function nextCursorOf(link: string | undefined): string | undefined {
  const url = link === undefined ? undefined : /^<([^>]*)>\s*;\s*rel="next"$/.exec(link)?.[1];
  if (url === undefined) return undefined;
  return new URL(url, 'https://release-check.invalid').searchParams.get('cursor') ?? undefined;
}
