import { nextPageHeaders } from '../../shared/http/pagination';
import { JsonText, ok } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import { petsJson } from '../../shared/pets/pet-json';
import { pageCursors } from '../../shared/pets/cursor-store';
import { listPets } from '../../shared/pets/service';
import { petReads } from '../../shared/pets/pet-reads-store';
import { petSpaceOf } from '../../shared/pets/pet-space';
import { REQUEST_CHECKS } from './request-checks.generated';

/** GET /v1/pets: one page of pets in ascending id order; `Link: rel="next"` when more follow. */
export const handler = httpOperation({
  ...REQUEST_CHECKS,
  handle: async ({ query, baseUrl, principal, deadline }) => {
    const page = await listPets({ pets: petReads[petSpaceOf(principal)], cursors: pageCursors }, query, deadline);
    const next = nextPageHeaders(`${baseUrl}/pets`, { limit: query.limit, status: query.status }, page.nextCursor);
    return ok(new JsonText(petsJson(page.pets)), next);
  },
});
