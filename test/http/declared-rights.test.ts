import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CASES, type NamedCase } from '../../bench/cases';
import { bodyOf, pathOf, withFill, type EventSpec } from '../../bench/children/events.mjs';
import { fillsFor } from '../../bench/setups';
import { partsOf, recordRightsUsed, type RightPart, type RightUse } from '../../local/dynamodb-rights';
import { DECLARED_RIGHTS, loadFunctionHandlers, startLocalServer, type OperationHandlers } from '../../local/server';
import { setClock } from '../../shared/clock';
import { FUNCTION_NAMES, FUNCTIONS, OPERATION_IDS, type FunctionName } from '../../functions/table';
import { API_BASE_PATH } from '../../shared/http/routes';
import { setLogSink } from '../../shared/log';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { RELEASES_PET_SPACE } from '../../shared/auth/principal';
import { RELEASE_KEY_PLAN } from '../../shared/release-check/check-identity';
import { TEST_KEY } from '../support/api';
import { testDatabase } from '../support/database';

/**
 * Every declared operation runs through the local rights check (local/dynamodb-rights.ts) by
 * default: every case of bench/cases.ts (main and error cases, the authorizer's too) is sent over
 * HTTP to the local server, which runs each function with its declared rights (functions/table.ts),
 * and must answer the status its case declares; a right missing from a declaration shows as a 500
 * (or, for the authorizer, API Gateway's 503) whose log line names it. Then every declared right,
 * per function, per action and per item kind or index, must have been used by a case, unless
 * RIGHTS_NO_CASE_USES says why no case can use it: a right no request needs is a right to take away.
 *
 * No code here is per operation: a new operation is covered by its declaration and its cases.
 */

/**
 * The parts of declared rights that no case uses, each with the reason. An entry a case does use
 * fails the test: remove it.
 */
const RIGHTS_NO_CASE_USES: readonly (RightPart & { readonly reason: string })[] = [
  {
    functionName: 'createPet',
    action: 'GetItem',
    items: 'pets',
    reason:
      "a pet is read back only when a write's outcome is unknown (a timeout or a lost answer: shared/pets/pet-writes.ts), which no case can bring about over HTTP",
  },
  {
    functionName: 'createPet',
    action: 'GetItem',
    items: 'releasePets',
    reason:
      "the same read back, of a pet of the releases' space (the release walk below creates one), which no request can bring about over HTTP either",
  },
];

/**
 * The release check's walk (shared/release-check/success-walk.ts), over HTTP with the release key:
 * the pets of the releases' space (shared/pets/pet-space.ts), which no bench case reaches (the bench
 * sends a customer's key), are created, read and listed with the declared rights too.
 */
const RELEASE_KEY = 'release-key-of-the-rights-test';
const RELEASE_WALK = [
  { name: 'release walk: createPet', status: 201 },
  { name: 'release walk: getPet', status: 200 },
  { name: 'release walk: listPets', status: 200 },
] as const;

/**
 * The functions the local server does not run, so that no request here can use their rights. Every
 * other function is served (DECLARED_RIGHTS): the operations, the apiDocs function and the
 * authorizer in front of every keyed request.
 */
const NOT_SERVED: Readonly<Partial<Record<FunctionName, string>>> = {
  keyMirror:
    "runs on a schedule (copying API Gateway's keys into the registry), never behind a route: test/integration/key-mirror.test.ts runs it with its declared rights",
  releaseProber:
    "runs on a schedule during a prod canary, never behind a route, and has no DynamoDB right: its requests are the operations' own, with their rights (test/unit/functions/releaseProber/handler.test.ts runs it, and test/local/release-drill.test.ts its rounds against the deployed bundles)",
  releaseCheck:
    "runs as CodeDeploy's hook before a release, never behind a route, and has no DynamoDB right: test/unit/functions/releaseCheck/handler.test.ts runs it, and test/local/release-drill.test.ts its check against the deployed bundles",
};

/**
 * Where every request comes from, as the server (listening there) sees it: the authorizer counts
 * requests without a valid key by this address. The cases `fromRefusedAddress` are sent last, once
 * it has used up its allowance (another loopback address would not exist on every machine).
 */
const CLIENT_ADDRESS = '127.0.0.1';

interface Outcome {
  readonly request: string;
  readonly status: number;
  readonly text: string;
  /** The log lines written while it was served (the function's request line, the authorizer's refusal). */
  readonly lines: readonly string[];
  readonly uses: readonly RightUse[];
}

/**
 * Every case: every declared operation's, and the authorizer's (run in front of them, and sent as
 * requests to the route its event names); those from a refused address last (CLIENT_ADDRESS).
 */
const CASES: readonly NamedCase[] = [
  ...ALL_CASES.filter((benchCase) => !fromRefusedAddress(benchCase)),
  ...ALL_CASES.filter(fromRefusedAddress),
];
function fromRefusedAddress({ event }: NamedCase): boolean {
  return event.type === 'authorizer' && event.fromRefusedAddress === true;
}
/** The apiDocs function's routes without a parameter, each of which answers 200 (it is declared with no DynamoDB right: any read would be refused). */
const DOCUMENTATION_REQUESTS = Object.entries(FUNCTIONS.apiDocs.routes)
  .filter(([, route]) => !route.path.includes('{'))
  .map(([name, route]) => ({ name: `apiDocs ${name}`, method: route.method, path: route.path, status: 200 }));
const outcomes = new Map<string, Outcome>();
/** Everything used while the cases ran, whichever case it was credited to. */
let usedByAll: readonly RightUse[] = [];

let lines: string[] = [];
let restoreSink: ReturnType<typeof setLogSink> | undefined;
let restoreClock: (() => void) | undefined;

beforeAll(async () => {
  // Mid-minute, pinned: the refused address stays over its allowance for the minute its requests are counted in.
  const midMinute = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  restoreClock = setClock(() => midMinute);
  restoreSink = setLogSink((line) => lines.push(line));

  const { client, tableName } = testDatabase();
  const handlers = await loadFunctionHandlers();
  const everything = recordRightsUsed();
  try {
    let addressRefused = false;
    for (const [n, benchCase] of CASES.entries()) {
      if (fromRefusedAddress(benchCase) && !addressRefused) {
        await useUpAllowanceOf(CLIENT_ADDRESS);
        addressRefused = true;
      }
      // The data a case's request needs (its setup, bench/setups.ts: e.g. a fresh pet, its id in the path), made as set-up: not checked.
      const [fill] = (await fillsFor(benchCase, { client, tableName }, 1)) ?? [];
      outcomes.set(benchCase.name, await served(handlers, requestOf(withFill(benchCase.event, fill), n)));
    }
    // The apiDocs function, served without a key.
    for (const { name, method, path } of DOCUMENTATION_REQUESTS)
      outcomes.set(name, await served(handlers, { method, path: `${API_BASE_PATH}${path}`, headers: {} }));
    // The release walk: its key registered as the key mirror copies the stage's (set-up: not checked).
    await new KeyRegistry(DynamoDBDocumentClient.from(client), tableName).register(
      RELEASE_KEY,
      RELEASE_KEY_PLAN,
      undefined,
      RELEASES_PET_SPACE,
    );
    const asRelease = { authorization: `Bearer ${RELEASE_KEY}` };
    const created = await served(handlers, {
      method: 'POST',
      path: `${API_BASE_PATH}/pets`,
      headers: { ...asRelease, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Release walk', categoryId: 1 }),
    });
    outcomes.set('release walk: createPet', created);
    const id = created.status === 201 ? (JSON.parse(created.text) as { id: number }).id : 0;
    outcomes.set(
      'release walk: getPet',
      await served(handlers, { method: 'GET', path: `${API_BASE_PATH}/pets/${id}`, headers: asRelease }),
    );
    outcomes.set(
      'release walk: listPets',
      await served(handlers, { method: 'GET', path: `${API_BASE_PATH}/pets?limit=100`, headers: asRelease }),
    );
  } finally {
    usedByAll = everything.used();
    everything.stop();
  }
});

afterAll(() => {
  if (restoreSink !== undefined) setLogSink(restoreSink);
  restoreClock?.();
});

/**
 * One request, served by a server of its own (as every HTTP test runs it: with the declared
 * rights), so that API Gateway's cache of the authorizer's answers is empty and the authorizer
 * runs for this request: what it uses is this case's.
 */
async function served(handlers: OperationHandlers, sent: HttpRequest): Promise<Outcome> {
  const server = await startLocalServer({ port: 0, handlers });
  lines = [];
  const recorder = recordRightsUsed();
  try {
    const { status, text } = await sendRequest(server.port, sent);
    return { request: `${sent.method} ${sent.path}`, status, text, lines, uses: recorder.used() };
  } finally {
    recorder.stop();
    await server.close();
  }
}

/** Counts requests without a valid key from the address until it has none left this minute (set-up: its calls are not checked). */
async function useUpAllowanceOf(address: string): Promise<void> {
  const { rateLimiter } = await import('../../shared/limits/limiter-instance');
  const { addressSubject } = await import('../../shared/auth/authorize');
  const { STANDARD_PLAN_LIMITS } = await import('../../shared/limits/plans');
  for (let i = 0; i < STANDARD_PLAN_LIMITS.free.perMinute; i += 1)
    await rateLimiter.check(addressSubject(address), STANDARD_PLAN_LIMITS.free);
}

interface HttpRequest {
  readonly method: string;
  /** From the host on: the stage's base path, the route's path, the query. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A case's event spec (bench/children/events.mjs) as the HTTP request API Gateway would have turned into that event. */
function requestOf(spec: EventSpec, n: number): HttpRequest {
  const headers: Record<string, string> = {};
  const query =
    spec.type === 'request' && spec.query !== undefined
      ? `?${new URLSearchParams(spec.query as Record<string, string>).toString()}`
      : '';
  const path = `${API_BASE_PATH}${pathOf(spec)}${query}`;
  if (spec.type === 'authorizer') {
    // The bench's key is a registered one (here, the tests' key); an unknown key is new each request.
    headers.authorization = `Bearer ${spec.key === 'unknown' ? `unknown-${randomUUID()}` : TEST_KEY}`;
    return { method: spec.method, path, headers };
  }
  // Without the authorizer: no key at all, which API Gateway answers 401 before any function runs.
  if (!spec.withoutAuthorizer) headers.authorization = `Bearer ${TEST_KEY}`;
  if (spec.freshIdempotencyKey) headers['idempotency-key'] = randomUUID();
  const body = bodyOf(spec, n);
  if (body === null) return { method: spec.method, path, headers };
  headers['content-type'] = 'application/json';
  return { method: spec.method, path, headers, body };
}

/** One request, from CLIENT_ADDRESS. */
function sendRequest(port: number, sent: HttpRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers =
      sent.body === undefined
        ? sent.headers
        : { ...sent.headers, 'content-length': String(Buffer.byteLength(sent.body)) };
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: sent.method,
        path: sent.path,
        headers,
        localAddress: CLIENT_ADDRESS,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(sent.body);
  });
}

/**
 * What went wrong while a request was served: the errors its log lines name (the rights check's
 * AccessDeniedException names the missing right), then the lines themselves (without the stacks and
 * the metrics), then the body.
 */
function diagnosis({ lines: logged, text }: Outcome): string {
  const entries = logged.map((line): Record<string, any> => {
    try {
      return JSON.parse(line) as Record<string, any>;
    } catch {
      return { line };
    }
  });
  const errors = entries.flatMap(({ error }) => (error === undefined ? [] : [`${error.name}: ${error.message}`]));
  const shown = entries.map(({ _aws, error, ...entry }) =>
    JSON.stringify(error === undefined ? entry : { ...entry, error: { name: error.name, message: error.message } }),
  );
  return [
    ...(errors.length > 0 ? [`its error: ${errors.join('\n  ')}`] : []),
    `its log lines: ${shown.length === 0 ? '(none)' : shown.join('\n  ')}`,
    `its body: ${text}`,
  ].join('\n');
}

const describePart = (part: RightPart): string =>
  `${part.functionName}'s ${part.action} on ${'items' in part ? `item kind ${part.items}` : `index ${part.index}`}`;
const samePart = (a: RightPart, b: RightPart): boolean =>
  a.functionName === b.functionName &&
  a.action === b.action &&
  ('items' in a ? 'items' in b && a.items === b.items : 'index' in b && a.index === b.index);

describe('every declared operation runs through the local rights check', () => {
  it('every declared operation has cases, and every function but those listed in NOT_SERVED is served', () => {
    expect(OPERATION_IDS.filter((operationId) => !CASES.some((benchCase) => benchCase.fn === operationId))).toEqual([]);
    const served = Object.keys(DECLARED_RIGHTS);
    expect(
      FUNCTION_NAMES.filter((name) => !served.includes(name)).sort(),
      'a function the local server does not run: list it in NOT_SERVED, with why',
    ).toEqual(Object.keys(NOT_SERVED).sort());
  });

  it.each([
    ...CASES.map(({ fn, name, status }) => [`${fn}: ${name}`, name, status] as const),
    ...[...DOCUMENTATION_REQUESTS, ...RELEASE_WALK].map(({ name, status }) => [name, name, status] as const),
  ])('%s answers as its case declares, with the declared rights', (_, name, status) => {
    const outcome = outcomes.get(name);
    expect(outcome, `${name} was not sent`).toBeDefined();
    expect(
      outcome!.status,
      `${name}: ${outcome!.request} answered ${outcome!.status}, its case declares ${status}\n${diagnosis(outcome!)}`,
    ).toBe(status);
  });

  it('every declared right is used by a case, or listed in RIGHTS_NO_CASE_USES with the reason none can', () => {
    const declared = Object.entries(DECLARED_RIGHTS).flatMap(([functionName, rights]) =>
      partsOf(functionName as FunctionName, rights),
    );
    const usedBy = (part: RightPart) =>
      [...outcomes.entries()]
        .filter(([, outcome]) => outcome.uses.some((use) => samePart(use, part)))
        .map(([name]) => name);
    const isUsed = (part: RightPart & { readonly rightIndex: number }) =>
      usedByAll.some((use) => samePart(use, part) && use.rightIndex === part.rightIndex);
    const problems = [
      ...declared
        .filter((part) => !isUsed(part) && !RIGHTS_NO_CASE_USES.some((exempt) => samePart(exempt, part)))
        .map(
          (part) =>
            `${describePart(part)} (right ${part.rightIndex} of its declaration) is used by no case: add a case to bench/cases.ts that uses it, or list it in RIGHTS_NO_CASE_USES (test/http/declared-rights.test.ts) with the reason no case can`,
        ),
      ...RIGHTS_NO_CASE_USES.filter((exempt) => usedByAll.some((use) => samePart(use, exempt))).map(
        (exempt) =>
          `${describePart(exempt)} is listed in RIGHTS_NO_CASE_USES, but ${usedBy(exempt).join(', ') || 'a case'} used it: remove the entry`,
      ),
      ...RIGHTS_NO_CASE_USES.filter((exempt) => !declared.some((part) => samePart(part, exempt))).map(
        (exempt) =>
          `${describePart(exempt)} is listed in RIGHTS_NO_CASE_USES, but its declaration grants no such right: remove the entry`,
      ),
      ...RIGHTS_NO_CASE_USES.filter(
        (exempt, index) => RIGHTS_NO_CASE_USES.findIndex((other) => samePart(other, exempt)) !== index,
      ).map((exempt) => `${describePart(exempt)} is listed in RIGHTS_NO_CASE_USES twice`),
      ...RIGHTS_NO_CASE_USES.filter((exempt) => exempt.reason.trim() === '').map(
        (exempt) =>
          `${describePart(exempt)} is listed in RIGHTS_NO_CASE_USES without a reason: say why no case can use it`,
      ),
    ];
    // A case that failed may have stopped before it used a right: its own failure says why.
    const failed = [...CASES, ...DOCUMENTATION_REQUESTS, ...RELEASE_WALK]
      .filter(({ name, status }) => outcomes.get(name)?.status !== status)
      .map(({ name }) => name);
    const first =
      failed.length === 0 ? '' : `(${failed.join(', ')} answered otherwise than declared: see that failure first)\n`;
    expect(problems, `${first}declared rights not accounted for:\n${problems.join('\n')}`).toEqual([]);
  });
});
