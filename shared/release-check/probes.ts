import type { ErrorCode } from '../errors';
import { API_BASE_PATH } from '../http/base-path';
import type { Route } from '../http/route';
import { judgeAnswer, judgeRefusal, type AnswerExpectation } from './answer-judgement';
import { petPageProblem } from './answer-shapes';
import { CHECK_ADDRESS } from './check-identity';
import { authorizerEvent, pathOf, proxyEvent, type SyntheticRequest } from './gateway-events';
import type { InvocationOutcome } from './invocation';

/**
 * What the release check asks each new version, and what it must answer. Each function declares
 * its probes as data (`releaseProbes`: an operation in functions/<operationId>/operation.ts, the
 * others in functions/table.ts); the check takes them as they are gathered from the table
 * (`releaseProbesOf`), and makes each one's event and judgement here. A probe takes the function's
 * whole path (its bundle loads, its checks, its datastore reads or counts, its error shaping) and
 * none writes a pet: the only writes are the rate counters of the check's own principal (each
 * probe sent as it counts one) and the authorizer's counter of the check's address. The success
 * paths, which write, are walked after them (./success-walk.ts).
 */

/**
 * Who a probe is sent as:
 * - `checkPrincipal`: the release key's principal (check-identity.ts: its pets apart from every
 *   customer's), as API Gateway passes a caller its authorizer allowed: to an operation, with no
 *   credential (the authorizer resolved it);
 * - `anonymous`: no caller at all, on a route without the authorizer (the documentation);
 * - `unknownToken`: a bearer token no key is (random each check), to the authorizer itself, as its
 *   REQUEST event: the one function that ever sees a credential.
 */
export type ProbeSender = 'checkPrincipal' | 'anonymous' | 'unknownToken';

/** What the check reads in a success's body, without zod (answer-shapes.ts): a page of at most `atMost` pets. */
export type BodyShape = { readonly kind: 'petPage'; readonly atMost: number };

/** The answer a probe expects: its status; for an error, the code of its Error body; for a success, the shape of its body. */
export interface ExpectedAnswer {
  readonly status: number;
  readonly code?: ErrorCode;
  readonly body?: BodyShape;
}

/** A probe's request: an operation's goes to its own route unless it names another. */
export interface ProbeRequest {
  readonly route?: Route;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Besides those API Gateway adds to every request (Host, X-Forwarded-*). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * A probe as a function's declaration holds it: plain data (the check's function bundles these,
 * written out: functions/releaseCheck/probes.generated.ts). An unknown token is always refused.
 */
export type ReleaseProbe = (
  | { readonly sentAs: 'checkPrincipal' | 'anonymous'; readonly expect: ExpectedAnswer }
  | { readonly sentAs: 'unknownToken'; readonly expect: 'refusal' }
) & {
  readonly request: ProbeRequest;
  /** Said after the request in the probe's name: `createPet: POST /v1/pets (an invalid pet)`. */
  readonly note?: string;
};

/**
 * A probe as the check takes it: its function's name, its route, and, for a deprecated operation,
 * the instant (ms) of its sunset, from which it answers 410 `gone` whatever the probe expected before.
 */
export type CheckProbe<Name extends string = string> = ReleaseProbe & {
  readonly functionName: Name;
  readonly request: ProbeRequest & { readonly route: Route };
  readonly goneFrom?: number;
};

/** What the gathering reads of a function's declaration (functions/table.ts). */
export interface ProbedFunction {
  readonly route?: Route;
  readonly success?: { readonly status: number };
  readonly errors?: readonly number[];
  readonly deprecation?: { readonly sunsetAt: Date };
  readonly releaseProbes?: readonly ReleaseProbe[];
}

/**
 * Every probe of the functions that declare some, function by function in the table's order, each
 * function's in its declaration's order. An operation's probe must expect a status its declaration
 * names (its success or one of its errors), and a deprecated one must name 410; else this throws,
 * naming the function, as the bench's cases do.
 */
export function releaseProbesOf<Name extends string>(
  functions: Readonly<Record<Name, ProbedFunction>>,
): CheckProbe<Name>[] {
  return (Object.keys(functions) as Name[]).flatMap((functionName) => {
    const { route, success, errors, deprecation, releaseProbes = [] } = functions[functionName];
    const statuses = success === undefined ? undefined : [success.status, ...(errors ?? [])];
    return releaseProbes.map((probe, index): CheckProbe<Name> => {
      const which = `${functionName}'s release probe ${index + 1}`;
      const probeRoute = probe.request.route ?? route;
      if (probeRoute === undefined) throw new Error(`${which} names no route, and ${functionName} has none of its own`);
      if (statuses !== undefined && probe.expect !== 'refusal' && !statuses.includes(probe.expect.status)) {
        throw new Error(
          `${which} expects ${probe.expect.status}, which ${functionName}'s declaration names neither as its success nor among its errors (${statuses.join(', ')})`,
        );
      }
      if (deprecation !== undefined && !(errors ?? []).includes(410))
        throw new Error(
          `${which}: ${functionName} is deprecated, so its probes expect 410 from its sunset on, which its errors do not name`,
        );
      return {
        ...probe,
        functionName,
        request: { route: probeRoute, ...probe.request },
        ...(deprecation === undefined ? {} : { goneFrom: deprecation.sunsetAt.getTime() }),
      };
    });
  });
}

/** e.g. `getPet: GET /v1/pets/10970726400000`, `createPet: POST /v1/pets (an invalid pet)`, `authorizer: GET /v1/pets with an unknown token`. */
export function probeName({ functionName, request, sentAs, note }: CheckProbe): string {
  const query = request.query === undefined ? '' : `?${new URLSearchParams(request.query)}`;
  const aside = `${note === undefined ? '' : ` (${note})`}${sentAs === 'unknownToken' ? ' with an unknown token' : ''}`;
  return `${functionName}: ${request.route.method} ${API_BASE_PATH}${pathOf(request)}${query}${aside}`;
}

/** A probe ready to send: its name, its function, the event it is sent, and its judgement. */
export interface Probe<Name extends string = string> {
  readonly name: string;
  readonly functionName: Name;
  readonly event: unknown;
  /** Undefined when the outcome is the expected answer, else why it is not. */
  readonly judge: (outcome: InvocationOutcome) => string | undefined;
}

/**
 * `at`: the service's time when the check starts (a deprecated operation answers 410 from its
 * sunset on); `token`: the unknown token; `caller`: the release principal's authorizer context
 * (./check-identity.ts), which the operations' probes carry.
 */
export function probeToSend<Name extends string>(
  probe: CheckProbe<Name>,
  {
    at,
    token,
    caller,
  }: { readonly at: number; readonly token: string; readonly caller: Readonly<Record<string, string>> },
): Probe<Name> {
  const { route, pathParameters, query, headers, body } = probe.request;
  const request: SyntheticRequest = {
    route,
    ...(pathParameters === undefined ? {} : { pathParameters }),
    ...(query === undefined ? {} : { query }),
    ...(body === undefined ? {} : { body }),
    ...(probe.sentAs === 'unknownToken'
      ? { headers: { ...headers, Authorization: `Bearer ${token}` } }
      : headers === undefined
        ? {}
        : { headers }),
    ...(probe.sentAs === 'checkPrincipal' ? { authorizer: caller } : {}),
    sourceIp: CHECK_ADDRESS,
    arrivedAt: at,
  };
  const name = probeName(probe);
  if (probe.sentAs === 'unknownToken')
    return { name, functionName: probe.functionName, event: authorizerEvent(request), judge: judgeRefusal };
  const expected =
    probe.goneFrom !== undefined && at >= probe.goneFrom
      ? { status: 410, code: 'gone' as const }
      : expectationOf(probe.expect);
  return {
    name,
    functionName: probe.functionName,
    event: proxyEvent(request),
    judge: (outcome) => judgeAnswer(outcome, expected),
  };
}

function expectationOf({ status, code, body }: ExpectedAnswer): AnswerExpectation {
  return {
    status,
    ...(code === undefined ? {} : { code }),
    ...(body === undefined ? {} : { body: bodyJudgement(body) }),
  };
}

function bodyJudgement(shape: BodyShape): (body: unknown) => string | undefined {
  switch (shape.kind) {
    case 'petPage':
      return (body) => petPageProblem(body, shape.atMost);
  }
}

/** A deprecated function's sunset (ms), as its probes carry it: from then on it answers 410. */
export function sunsetOf(probes: readonly CheckProbe<string>[], functionName: string): number | undefined {
  return probes.find((probe) => probe.functionName === functionName && probe.goneFrom !== undefined)?.goneFrom;
}
