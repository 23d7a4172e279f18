import { nextPageHeaders } from '../shared/http/pagination';
import { JsonText, ok } from '../shared/http/result';
import { httpOperation } from '../shared/http/stack';
import { OPERATION_SCHEMAS } from '../shared/pets/operation-schemas';
import { petsJson } from '../shared/pets/pet-json';
import { listPets } from '../shared/pets/service';
import { petStore } from '../shared/pets/store';

/** GET /v1/pets: one page of pets in ascending id order; `Link: rel="next"` when more follow. */
export const handler = httpOperation({
  operationId: 'listPets',
  ...OPERATION_SCHEMAS.listPets.request,
  handle: async ({ query, baseUrl, deadline }) => {
    const page = await listPets(petStore, query, deadline);
    const next = nextPageHeaders(`${baseUrl}/pets`, { limit: query.limit, status: query.status }, page.nextCursor);
    return ok(new JsonText(petsJson(page.pets)), next);
  },
});
