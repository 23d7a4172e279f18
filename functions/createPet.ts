import { created, JsonText } from '../shared/http/result';
import { API_BASE_PATH } from '../shared/http/routes';
import { httpOperation } from '../shared/http/stack';
import { OPERATION_SCHEMAS } from '../shared/pets/operation-schemas';
import { petJson } from '../shared/pets/pet-json';
import { createPet } from '../shared/pets/service';
import { petStore } from '../shared/pets/store';

/** POST /v1/pets: 201 with the new pet and where to find it. */
export const handler = httpOperation({
  operationId: 'createPet',
  ...OPERATION_SCHEMAS.createPet.request,
  handle: async ({ body, deadline, admitted }) => {
    const pet = await createPet(petStore, body, { deadline, beforeWrite: admitted });
    return created(new JsonText(petJson(pet)), { Location: `${API_BASE_PATH}/pets/${pet.id}` });
  },
});
