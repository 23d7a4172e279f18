import { GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { JsonText, ok } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import { petJson } from '../../shared/pets/pet-json';
import { getPet } from '../../shared/pets/service';
import { petReads } from '../../shared/pets/pet-reads-store';
import { petSpaceOf } from '../../shared/pets/pet-space';
import { REQUEST_CHECKS } from './request-checks.generated';

/** GET /v1/pets/{petId} (deprecated): every answer says so and names the successor; from its sunset on, 410 `gone`. */
export const handler = httpOperation({
  ...REQUEST_CHECKS,
  deprecation: GET_PET_DEPRECATION,
  handle: async ({ path, principal, deadline }) =>
    ok(new JsonText(petJson(await getPet({ pets: petReads[petSpaceOf(principal)] }, path.petId, deadline)))),
});
