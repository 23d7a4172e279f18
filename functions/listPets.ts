import { nextPageHeaders } from '../shared/http/pagination';
import { ok } from '../shared/http/result';
import { httpOperation } from '../shared/http/stack';
import { ListPetsQuery } from '../shared/pets/schema';
import { listPets } from '../shared/pets/service';
import { petStore } from '../shared/pets/store';

/** GET /v1/pets: one page of pets in ascending id order; `Link: rel="next"` when more follow. */
export const handler = httpOperation({
  operationId: 'listPets',
  query: ListPetsQuery,
  handle: async ({ query, baseUrl, signal }) => {
    const page = await listPets(petStore, query, signal);
    const next = nextPageHeaders(`${baseUrl}/pets`, { limit: query.limit, status: query.status }, page.nextCursor);
    return ok(page.pets, next);
  },
});
