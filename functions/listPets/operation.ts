import * as z from 'zod/mini';
import { LIST_INDEX, PET_SHARDS, STATUS_INDEX, STATUS_INDEX_AGAIN } from '../../shared/dynamodb/table-definition';
import { COMMON_ERRORS, COUNT_KEY_REQUESTS } from '../../shared/function-declaration';
import { LIST_PETS_REQUEST } from '../../shared/pets/list-pets-query';
import { CACHED_PAGE_MS } from '../../shared/pets/first-page-cache';
import { shareOf } from '../../shared/pets/page-merge';
import { CLOCK_SKEW_MS, LISTING_SETTLE_MS } from '../../shared/pets/pet-ids';
import { Pet } from '../../shared/pets/pet';
import { declareOperation } from '../operation-declaration';

/** GET /v1/pets: one page of pets in ascending id order. */
export const listPets = declareOperation({
  route: { method: 'GET', path: '/pets' },
  dynamodb: [
    { actions: ['Query'], items: ['pets', 'releasePets'] },
    { actions: ['Query'], index: STATUS_INDEX },
    { actions: ['Query'], index: STATUS_INDEX_AGAIN },
    { actions: ['Query'], index: LIST_INDEX },
    COUNT_KEY_REQUESTS,
  ],
  // Signs and reads page cursors.
  secrets: ['cursor'],
  request: LIST_PETS_REQUEST,
  success: { status: 200, body: z.array(Pet), description: 'A page of animals (a JSON array).' },
  errors: COMMON_ERRORS,
  summary: 'List all animals',
  description:
    'One page of animals in ascending `id` order, optionally only those of one status. When more follow, ' +
    '`Link: <URL>; rel="next"` gives the next page (the same request with an opaque `cursor`); the last page has no `Link`. ' +
    `A listing may be up to about a second behind: it does not show an animal whose \`id\` is less than ${LISTING_SETTLE_MS} ms old (by the clock of the instance that answers; instances may be ${CLOCK_SKEW_MS} ms apart), and a busy first page may come from a cache of at most ${CACHED_PAGE_MS} ms. ` +
    'A walk through the pages never repeats an animal, and never skips one created at least a second before the walk began; a client that requests its last `Link` again from time to time sees every animal created (as long as DynamoDB shows a write within a few hundred ms). A `Link` never leads to an empty page. `getPet` finds an animal as soon as its create answered.',
  stability: 'stable',
  // A page counts the key's request while its shard queries run: one round trip.
  bench: {
    main: 'listPets',
    cases: {
      listPets: {
        request: { query: { limit: '20' } },
        status: 200,
        timedWithoutIo: true,
        dynamoDb: {
          label: 'listPets (limit 20)',
          maxRoundTrips: 1,
          maxItemsRead: PET_SHARDS * shareOf(20, PET_SHARDS),
          costShare: 0.7,
        },
      },
      listPetsLimit100: {
        request: { query: { limit: '100' } },
        status: 200,
        timedWithoutIo: false,
        dynamoDb: {
          label: 'listPets (limit 100)',
          maxRoundTrips: 1,
          maxItemsRead: PET_SHARDS * shareOf(100, PET_SHARDS),
        },
      },
      listPetsByStatus: {
        request: { query: { limit: '20', status: 'available' } },
        status: 200,
        timedWithoutIo: false,
      },
      // An instance's second page with the same filter: from the status index's second set (petsByStatusAgain).
      listPetsByStatusAgain: {
        request: { query: { limit: '20', status: 'available' } },
        status: 200,
        timedWithoutIo: false,
      },
      invalid: { request: { query: { limit: '0' } }, status: 400, timedWithoutIo: true },
      unauthorized: { request: { query: { limit: '20' }, withoutAuthorizer: true }, status: 401, timedWithoutIo: true },
    },
  },
  // A page of one: its shards' queries and the principal's count, a page of at most one pet back.
  releaseProbes: [
    {
      request: { query: { limit: '1' } },
      sentAs: 'checkPrincipal',
      expect: { status: 200, body: { kind: 'petPage', atMost: 1 } },
    },
  ],
});
