import { COMMON_ERRORS, COUNT_KEY_REQUESTS } from '../../shared/function-declaration';
import { GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { Pet } from '../../shared/pets/pet';
import { GET_PET_REQUEST } from '../../shared/pets/pet-id-path';
import { UNISSUED_PET_ID } from '../../shared/pets/pet-ids';
import { declareOperation } from '../operation-declaration';

const sunsetDay = GET_PET_DEPRECATION.sunsetAt.toISOString().slice(0, 10);

/** GET /v1/pets/{petId} (deprecated): one pet; from its sunset on, 410 `gone`. */
export const getPet = declareOperation({
  route: { method: 'GET', path: '/pets/{petId}' },
  dynamodb: [{ actions: ['GetItem'], items: ['pets', 'releasePets'] }, COUNT_KEY_REQUESTS],
  request: GET_PET_REQUEST,
  success: { status: 200, body: Pet, description: 'The animal.' },
  errors: [...COMMON_ERRORS, 404, 410],
  summary: 'Get an animal (deprecated)',
  description:
    `Deprecated since interface 1.0.0 and removed on ${sunsetDay}: ` +
    `use \`GET ${GET_PET_DEPRECATION.successorPath}\` (with the \`status\` filter) instead. ` +
    'Every answer carries `Deprecation`, `Sunset` and a `Link` to the successor. ' +
    `From the \`Sunset\` instant (${GET_PET_DEPRECATION.sunsetAt.toISOString()}) on, by the service's clock, it answers 410 \`gone\` to every request, whatever the \`petId\` (still authenticated and counted).`,
  stability: 'stable',
  deprecation: GET_PET_DEPRECATION,
  bench: {
    main: 'getPet',
    cases: {
      // Each request reads a pet of its own, created before it (bench/setups.ts: its id filled into the path).
      getPet: {
        setup: 'freshPet',
        status: 200,
        timedWithoutIo: true,
        dynamoDb: { label: 'getPet', maxRoundTrips: 1, costShare: 0.1 },
      },
      // An id no create draws (one of 2026-01-01's first millisecond).
      missingPet: { request: { pathParameters: { petId: '1' } }, status: 404, timedWithoutIo: false },
    },
  },
  // An id never issued: the read and the principal's count, nothing found (410 from the sunset on).
  releaseProbes: [
    {
      request: { pathParameters: { petId: String(UNISSUED_PET_ID) } },
      sentAs: 'checkPrincipal',
      expect: { status: 404, code: 'not_found' },
    },
  ],
});
