import { COMMON_ERRORS, COUNT_KEY_REQUESTS } from '../../shared/function-declaration';
import { CREATE_PET_REQUEST } from '../../shared/pets/new-pet';
import { Pet } from '../../shared/pets/pet';
import { declareOperation } from '../operation-declaration';

/** Each create names its pet apart (`{n}`: bench/children/events.mjs). */
const NEW_PET = { name: 'Bench {n}', categoryId: 3, status: 'available' };

/** POST /v1/pets: adds a pet; with `Idempotency-Key`, at most once per key. */
export const createPet = declareOperation({
  route: { method: 'POST', path: '/pets' },
  dynamodb: [
    COUNT_KEY_REQUESTS,
    // With an Idempotency-Key: reads the key's record, then writes pet and record in one transaction.
    // Reads a pet back only when a write's outcome is unknown (shared/pets/pet-writes.ts).
    { actions: ['GetItem'], items: ['idempotencyRecords', 'pets', 'releasePets'] },
    { actions: ['PutItem'], items: ['pets', 'releasePets', 'idempotencyRecords'] },
  ],
  request: CREATE_PET_REQUEST,
  success: { status: 201, body: Pet, description: 'The animal as stored.' },
  errors: [...COMMON_ERRORS, 409, 422],
  summary: 'Add an animal',
  description:
    'Creates an animal (status `available` unless given) and answers 201 with it and its `Location`. ' +
    'Send an `Idempotency-Key` to make retries safe: a retry with the same key and body within 24 hours answers the first ' +
    'answer again, with `Idempotent-Replayed: true`, and never adds a second animal; the pet and the record of its key are ' +
    'written together or not at all. Without the header a retry after a 503 or a lost answer may add the animal twice.',
  stability: 'stable',
  // A create counts (and reads the key's record meanwhile), then draws the id and writes: two round trips.
  bench: {
    main: 'createPet',
    cases: {
      createPet: {
        request: { body: NEW_PET },
        status: 201,
        timedWithoutIo: true,
        dynamoDb: { label: 'createPet', maxRoundTrips: 2, costShare: 0.1 },
      },
      createPetWithKey: {
        request: { body: NEW_PET, freshIdempotencyKey: true },
        status: 201,
        timedWithoutIo: true,
        dynamoDb: { label: 'createPet with Idempotency-Key (first use)', maxRoundTrips: 2, costShare: 0.1 },
      },
      invalidPet: { request: { body: { name: ' ', categoryId: 3 } }, status: 400, timedWithoutIo: false },
    },
  },
  // Not a pet (a name of white space alone and category 0: two 400s at once): read, checked and
  // counted, nothing written.
  releaseProbes: [
    {
      request: { headers: { 'Content-Type': 'application/json' }, body: '{"name":" ","categoryId":0}' },
      sentAs: 'checkPrincipal',
      expect: { status: 400, code: 'invalid_request' },
      note: 'an invalid pet',
    },
  ],
});
