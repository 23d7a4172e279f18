import { created, JsonText } from '../../shared/http/result';
import { API_BASE_PATH } from '../../shared/http/routes';
import { httpOperation } from '../../shared/http/stack';
import { petJson } from '../../shared/pets/pet-json';
import { createPet } from '../../shared/pets/service';
import { petWrites } from '../../shared/pets/pet-writes-store';
import { petSpaceOf } from '../../shared/pets/pet-space';
import { REQUEST_CHECKS } from './request-checks.generated';

/** POST /v1/pets: 201 with the new pet and where to find it; with `Idempotency-Key`, at most once per key. */
export const handler = httpOperation({
  ...REQUEST_CHECKS,
  handle: async ({ body, headers, principal, deadline, admitted }) => {
    const key = headers['Idempotency-Key'];
    const idempotencyKey = key === undefined ? undefined : { owner: principal.keyId, value: key };
    const { pet, replayed } = await createPet({ pets: petWrites[petSpaceOf(principal)] }, body, {
      deadline,
      beforeWrite: admitted,
      idempotencyKey,
    });
    const location = `${API_BASE_PATH}/pets/${pet.id}`;
    return created(
      new JsonText(petJson(pet)),
      replayed ? { Location: location, 'Idempotent-Replayed': 'true' } : { Location: location },
    );
  },
});
