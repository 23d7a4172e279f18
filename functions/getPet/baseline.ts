import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { now } from '../../shared/clock';
// The same cache of found pets as ours: a feature, not framework.
import { FoundPetCache } from '../../shared/pets/found-pet-cache';
import type { Pet } from '../../shared/pets/schema';
import {
  admitted,
  begin,
  refusedWithoutKey,
  db,
  error,
  pad,
  petJson,
  petOf,
  petPartition,
  respond,
  TABLE,
} from '../../bench/baseline/common';

const DEPRECATION = {
  Deprecation: '@1795305600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};
const SUNSET_MS = Date.UTC(2030, 11, 5);
/** As ours reads FOUND_PET_CACHE; one per pet space. */
const foundPets =
  process.env.FOUND_PET_CACHE === 'off'
    ? undefined
    : { customers: new FoundPetCache(now), releases: new FoundPetCache(now) };

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'getPet', 'GET /v1/pets/{petId}');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  // The same sunset as ours: from then on 410 for every request, counted, nothing read.
  if (now() >= SUNSET_MS) {
    const decided = await admitted(context);
    return (
      decided.refusal ??
      error(context, decided.count, {
        status: 410,
        code: 'gone',
        message: 'This operation was removed; use /v1/pets instead.',
        headers: DEPRECATION,
      })
    );
  }
  const raw = event.pathParameters?.petId ?? '';
  const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0;
  if (!Number.isSafeInteger(id) || id < 1 || Object.keys(event.queryStringParameters ?? {}).length > 0) {
    const decided = await admitted(context);
    return (
      decided.refusal ??
      error(context, decided.count, {
        status: 400,
        code: 'invalid_request',
        message: 'The request is invalid: path.petId: must be an integer.',
        headers: DEPRECATION,
        detail: { path: 'path.petId', message: 'must be an integer' },
      })
    );
  }
  // Strongly consistent, in the pet's shard; a found pet from memory for up to a second, as ours.
  const release = context.caller?.release === true;
  const fetch = async (): Promise<Pet | undefined> => {
    const { Item } = await db.send(
      new GetItemCommand({
        TableName: TABLE,
        Key: { pk: { S: petPartition(id, release) }, sk: { S: pad(id) } },
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : petOf(Item);
  };
  const cache = foundPets === undefined ? undefined : release ? foundPets.releases : foundPets.customers;
  const read = cache === undefined ? fetch() : cache.pet(id, fetch);
  read.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  let pet: Awaited<typeof read>;
  try {
    pet = await read;
  } catch {
    return error(context, decided.count, {
      status: 503,
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable.',
      headers: {
        'Retry-After': '1',
        ...DEPRECATION,
      },
    });
  }
  if (pet === undefined)
    return error(context, decided.count, {
      status: 404,
      code: 'not_found',
      message: `No pet has the id ${id}.`,
      headers: DEPRECATION,
    });
  return respond(context, decided.count, { status: 200, body: petJson(pet), headers: DEPRECATION });
};
