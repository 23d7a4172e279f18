import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { RELEASE_PROBES, type ReleasedFunction } from '../../functions/table';
import { authorizerContextOf, releasePrincipal } from '../../shared/release-check/check-identity';
import type { InvocationOutcome } from '../../shared/release-check/invocation';
import { probeName, type CheckProbe } from '../../shared/release-check/probes';
import type { ProbeResult } from '../../shared/release-check/run-release-check';
import { successWalk, type WalkFunction } from '../../shared/release-check/success-walk';

/** Every probe of the release check, in its order, as the table of functions declares it, with the name its result gives it. */
export const PROBES: readonly (CheckProbe<ReleasedFunction> & { readonly name: string })[] = RELEASE_PROBES.map(
  (probe) => ({ ...probe, name: probeName(probe) }),
);

/** The release key the tests' checks are given. */
export const RELEASE_KEY = 'release_key_of_the_tests';

/** The walk's steps, in order, by name and function (their names do not depend on the walk's setting). */
export const WALK_STEPS: readonly { readonly name: string; readonly functionName: WalkFunction }[] = successWalk({
  releaseKey: RELEASE_KEY,
  principal: releasePrincipal(RELEASE_KEY),
  at: 0,
}).map(({ name, functionName }) => ({ name, functionName }));
/** The invocations of a walk whose every step passes at once: one a step, but the listing's two (its status page, then the unfiltered first page). */
export const WALK_INVOCATIONS: readonly WalkFunction[] = WALK_STEPS.flatMap(({ functionName }) =>
  functionName === 'listPets' ? [functionName, functionName] : [functionName],
);

/** The check's result when every probe and step passes but those given, which fail with their reason (by name). */
export function resultsWith(failures: Readonly<Record<string, string>> = {}): ProbeResult<ReleasedFunction>[] {
  return [...PROBES, ...WALK_STEPS].map(({ functionName, name }) =>
    failures[name] === undefined
      ? { name, functionName, passed: true }
      : { name, functionName, passed: false, reason: failures[name] },
  );
}

/** A pet as the functions write one. */
export const GOOD_PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

/**
 * What a function gives back when all is well, for one of its probes: the answer the probe expects
 * (an Error body with its code; a page of one pet; a page of the documentation), or the
 * authorizer's Unauthorized.
 */
export function goodOutcomeOf(probe: CheckProbe): InvocationOutcome {
  if (probe.expect === 'refusal') return { kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' };
  const { status, code, body } = probe.expect;
  const text =
    code !== undefined
      ? JSON.stringify({ code, message: 'What went wrong.', status })
      : body?.kind === 'petPage'
        ? JSON.stringify([GOOD_PET].slice(0, body.atMost))
        : '<!doctype html>';
  return {
    kind: 'returned',
    payload: {
      statusCode: status,
      headers: { 'Content-Type': code !== undefined || body !== undefined ? 'application/json' : 'text/html' },
      body: text,
    },
  };
}

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): InvocationOutcome => ({
  kind: 'returned',
  payload: { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) },
});

/**
 * The walk's functions as good versions answer it, with a pet store of their own: the authorizer
 * allows the release key (as its principal) and nothing else; a create answers 201 with the pet
 * (the ids from 7 on) and its Location; a get the pet or 404; a listing every pet made.
 */
export function walkService(): (functionName: string, event: unknown) => InvocationOutcome {
  const pets: Record<string, unknown>[] = [];
  return (functionName, event) => {
    switch (functionName) {
      case 'authorizer': {
        const token = (event as APIGatewayRequestAuthorizerEvent).headers?.Authorization?.replace(/^Bearer /, '');
        if (token !== RELEASE_KEY) return { kind: 'functionError', errorType: 'Error', errorMessage: 'Unauthorized' };
        const { principalId, ...context } = authorizerContextOf(releasePrincipal(token));
        return {
          kind: 'returned',
          payload: {
            principalId,
            usageIdentifierKey: token,
            policyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Action: 'execute-api:Invoke',
                  Effect: 'Allow',
                  Resource: 'arn:aws:execute-api:us-east-1:000000000000:releasecheck/v1/*/*',
                },
              ],
            },
            context,
          },
        };
      }
      case 'createPet': {
        const pet = {
          id: 7 + pets.length,
          ...(JSON.parse((event as APIGatewayProxyEvent).body ?? '{}') as Record<string, unknown>),
        };
        pets.push(pet);
        return json(201, pet, { Location: `/v1/pets/${pet.id}` });
      }
      case 'getPet': {
        const pet = pets.find((made) => String(made.id) === (event as APIGatewayProxyEvent).pathParameters?.petId);
        return pet === undefined
          ? json(404, { code: 'not_found', message: 'No such pet.', status: 404 })
          : json(200, pet);
      }
      case 'listPets': {
        // The status filter and the page's size; one page.
        const { status, limit } = (event as APIGatewayProxyEvent).queryStringParameters ?? {};
        return json(
          200,
          pets.filter((pet) => status === undefined || pet.status === status).slice(0, Number(limit ?? 20)),
        );
      }
      default:
        throw new Error(`the walk goes through no ${functionName}`);
    }
  };
}
