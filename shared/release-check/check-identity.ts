import { randomBytes } from 'node:crypto';
import { keyIdOf, hashApiKey } from '../auth/api-key-hash';
import { principalContext } from '../auth/authorizer-contract';
import { RELEASES_PET_SPACE, type Principal } from '../auth/principal';
import { STANDARD_PLAN_LIMITS, type PlanName } from '../limits/plans';

/**
 * Who the release check is. The stage's release key (an API Gateway key the stack makes, in the
 * Business usage plan: RELEASE_KEY_PLAN) is mirrored into the key registry as the one key of the
 * releases' pet space (shared/pets/pet-space.ts); the check reads its value from API Gateway when it
 * runs (the drill makes its own), never keeps it, and is that key's principal: its requests are
 * counted under the key (`RATE#key#<its id>`), its pets live apart and expire, and no customer
 * sees them.
 */
export const RELEASE_KEY_PLAN = 'business' satisfies PlanName;

/** The principal the authorizer must map the release key to, and the one the operations are probed as. */
export function releasePrincipal(releaseKey: string): Principal {
  return {
    keyId: keyIdOf(hashApiKey(releaseKey)),
    plan: RELEASE_KEY_PLAN,
    limits: STANDARD_PLAN_LIMITS[RELEASE_KEY_PLAN],
    petSpace: RELEASES_PET_SPACE,
  };
}

/** `requestContext.authorizer` of a request the authorizer allowed for a principal, as API Gateway passes it (strings, with `principalId`). */
export function authorizerContextOf(principal: Principal): Readonly<Record<string, string>> {
  return { principalId: principal.keyId, ...principalContext(principal) };
}

/**
 * Where the check's requests come from: an address of TEST-NET-1 (RFC 5737), for documentation and
 * never a client's. The authorizer counts the check's unknown token against it
 * (`RATE#ip#192.0.2.1`), under the Free limits like any address.
 */
export const CHECK_ADDRESS = '192.0.2.1';

/** A bearer token no key is: well-formed (RFC 6750's b64token), random each check so that no registry entry or cache answers it. */
export function unknownToken(): string {
  return `release-check-${randomBytes(24).toString('base64url')}`;
}
