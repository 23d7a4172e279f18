import { randomBytes } from 'node:crypto';
import { principalContext } from '../auth/authorizer-contract';
import type { Principal } from '../auth/principal';
import { STANDARD_PLAN_LIMITS } from '../limits/plans';

/**
 * The principal the operations are probed as, which belongs to no customer: key id sixteen zeros.
 * A key id is the first 16 hex digits of a key's SHA-256 (shared/auth/api-key-hash.ts) and the
 * operations accept no other form, so this one is of that form; a real key has it with a chance of
 * 2^-64. The check's requests are counted under it (`RATE#key#0000000000000000`), never under a
 * customer's key, on the Business plan: 1,000 a minute, far more than the checks of any number of
 * deploys send (three counted requests each).
 */
export const CHECK_PRINCIPAL: Principal = { keyId: '0000000000000000', plan: 'business', limits: STANDARD_PLAN_LIMITS.business };

/** `requestContext.authorizer` of a request the authorizer allowed for that principal, as API Gateway passes it (strings, with `principalId`). */
export const CHECK_AUTHORIZER_CONTEXT: Readonly<Record<string, string>> = { principalId: CHECK_PRINCIPAL.keyId, ...principalContext(CHECK_PRINCIPAL) };

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
