import { SWAGGER_UI_FILES } from '../docs/reference-page';
import { API_BASE_PATH } from '../http/base-path';
import { GET_PET_DEPRECATION, isPastSunset } from '../http/deprecation';
import { DOCUMENTATION_ROUTES } from '../http/documentation-routes';
import { OPERATION_ROUTES } from '../http/operation-routes.generated';
import { drawPetId } from '../pets/pet-ids';
import { judgeAnswer, judgeRefusal } from './answer-judgement';
import { petPageProblem } from './answer-shapes';
import { CHECK_ADDRESS, CHECK_AUTHORIZER_CONTEXT } from './check-identity';
import { authorizerEvent, pathOf, proxyEvent, type SyntheticRequest } from './gateway-events';
import type { InvocationOutcome } from './invocation';
import type { ReleasedFunction } from './released-functions';

/**
 * What the release check asks each new version, and what it must answer. Each probe takes the
 * function's whole path (its bundle loads, its checks, its datastore reads or counts, its error
 * shaping) and none writes a pet: the only writes are the rate counters of the check's own
 * principal (the three operations count it) and the authorizer's counter of the check's address.
 */
export interface Probe {
  /** e.g. `getPet: GET /v1/pets/10970726400000`. */
  readonly name: string;
  readonly functionName: ReleasedFunction;
  readonly event: unknown;
  /** Undefined when the outcome is the expected answer, else why it is not. */
  readonly judge: (outcome: InvocationOutcome) => string | undefined;
}

/**
 * A pet id no create has drawn or will draw: well-formed (it passes getPet's checks), so the
 * request reaches the datastore. Time-ordered ids are drawn for the moment of a create
 * (shared/pets/pet-ids.ts), and this is the first id of 2026-02-01, ten months before that scheme
 * was written (no create ran then, no create will run then again); the retired counter handed out
 * ids one by one, never near 10^13.
 */
export const UNISSUED_PET_ID = drawPetId(Date.UTC(2026, 1, 1), () => 0);

/** Not a pet: a name of white space alone and category 0 (two 400s at once). */
export const INVALID_NEW_PET = '{"name":" ","categoryId":0}';

/** `at`: the service's time when the check starts (getPet answers 410 from its sunset on); `token`: the authorizer probe's unknown token. */
export function releaseProbes({ at, token }: { readonly at: number; readonly token: string }): Probe[] {
  const asCheck = { authorizer: CHECK_AUTHORIZER_CONTEXT, sourceIp: CHECK_ADDRESS, arrivedAt: at };
  const anonymous = { sourceIp: CHECK_ADDRESS, arrivedAt: at };
  const gone = isPastSunset(GET_PET_DEPRECATION, at);
  const probe = (functionName: ReleasedFunction, request: SyntheticRequest, judge: Probe['judge'], aside = ''): Probe => ({
    name: `${functionName}: ${request.route.method} ${API_BASE_PATH}${pathOf(request)}${request.query === undefined ? '' : `?${new URLSearchParams(request.query)}`}${aside}`,
    functionName,
    event: functionName === 'authorizer' ? authorizerEvent(request) : proxyEvent(request),
    judge,
  });
  return [
    probe('listPets', { route: OPERATION_ROUTES.listPets, query: { limit: '1' }, ...asCheck }, (outcome) => judgeAnswer(outcome, { status: 200, body: (body) => petPageProblem(body, 1) })),
    probe('getPet', { route: OPERATION_ROUTES.getPet, pathParameters: { petId: String(UNISSUED_PET_ID) }, ...asCheck }, (outcome) =>
      judgeAnswer(outcome, gone ? { status: 410, code: 'gone' } : { status: 404, code: 'not_found' }),
    ),
    probe(
      'createPet',
      { route: OPERATION_ROUTES.createPet, headers: { 'Content-Type': 'application/json' }, body: INVALID_NEW_PET, ...asCheck },
      (outcome) => judgeAnswer(outcome, { status: 400, code: 'invalid_request' }),
      ' (an invalid pet)',
    ),
    // The documentation routes need no key: no authorizer ran, none in the context.
    probe('apiDocs', { route: DOCUMENTATION_ROUTES.openApiDocument, ...anonymous }, (outcome) => judgeAnswer(outcome, { status: 200 })),
    probe('apiDocs', { route: DOCUMENTATION_ROUTES.apiReference, ...anonymous }, (outcome) => judgeAnswer(outcome, { status: 200 })),
    // Each file the deploy ships beside the bundle (infra/pet-store-stack.ts, extraFiles).
    ...SWAGGER_UI_FILES.map((asset) =>
      probe('apiDocs', { route: DOCUMENTATION_ROUTES.apiReferenceAsset, pathParameters: { asset }, ...anonymous }, (outcome) => judgeAnswer(outcome, { status: 200 })),
    ),
    probe('authorizer', { route: OPERATION_ROUTES.listPets, headers: { Authorization: `Bearer ${token}` }, ...anonymous }, judgeRefusal, ' with an unknown token'),
  ];
}

