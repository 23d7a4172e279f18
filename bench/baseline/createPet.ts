import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { repeatedMember } from '../../shared/http/json-members';
import { admitted, begin, refusedWithoutKey, db, error, pad, respond, TABLE } from './common';

const STATUSES = new Set(['available', 'pending', 'sold']);

type Invalid = { path: string; message: string };
const invalid = (path: string, message: string): Invalid => ({ path, message });

function parse(event: APIGatewayProxyEvent): { name: string; categoryId: number; status: string } | Invalid {
  if (!/^application\/json\b/i.test(event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '')) return invalid('header.content-type', 'must be application/json');
  let body: unknown;
  try {
    body = JSON.parse(event.body ?? '');
  } catch {
    return invalid('body', 'is not valid JSON');
  }
  // The same I-JSON check as ours (a member given twice), with the same helper: a feature, not framework.
  const repeated = repeatedMember(event.body ?? '');
  if (repeated !== undefined) return invalid(`body.${repeated.name}`, 'is given more than once');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('body', 'must be a JSON object');
  const { name, categoryId, status = 'available', ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return invalid(`body.${Object.keys(rest)[0]}`, 'is not a known field');
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed.length < 1 || [...trimmed].length > 100) return invalid('body.name', 'must be 1 to 100 characters');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1) return invalid('body.categoryId', 'must be a positive integer');
  if (typeof status !== 'string' || !STATUSES.has(status)) return invalid('body.status', 'must be one of available, pending, sold');
  return { name: trimmed, categoryId, status };
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'createPet', 'POST /v1/pets');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  const pet = parse(event);
  if ('path' in pet) {
    const decided = await admitted(context);
    return decided.refusal ?? error(context, decided.count, 400, 'invalid_request', `The request is invalid: ${pet.path}: ${pet.message}.`, undefined, pet);
  }
  const nextId = db.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: { pk: { S: 'SEQUENCE' }, sk: { S: 'pet' } },
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': { N: '1' } },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  nextId.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  try {
    const id = Number((await nextId).Attributes?.value?.N);
    await db.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: {
          pk: { S: 'PET' },
          sk: { S: pad(id) },
          id: { N: String(id) },
          name: { S: pet.name },
          categoryId: { N: String(pet.categoryId) },
          status: { S: pet.status },
          createdAt: { S: new Date().toISOString() },
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return respond(context, decided.count, 201, `{"id":${id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`, {
      Location: `/v1/pets/${id}`,
    });
  } catch {
    return error(context, decided.count, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': '1' });
  }
};
