import { GetItemCommand, PutItemCommand, TransactionCanceledException, TransactWriteItemsCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readJson } from '../../shared/http/json-text';
import { now } from '../../shared/clock';
import { admitted, begin, refusedWithoutKey, db, error, pad, respond, TABLE, type Context, type Count } from './common';

const STATUSES = new Set(['available', 'pending', 'sold']);

type Invalid = { path: string; message: string };
const invalid = (path: string, message: string): Invalid => ({ path, message });

// The same hidden and visible characters as ours (decisions.md), written out by hand.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const VISIBLE = /[^\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u200b-\u200d\u2060\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

function parse(event: APIGatewayProxyEvent): { name: string; categoryId: number; status: string } | Invalid {
  if (!/^application\/json\b/i.test(event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '')) return invalid('header.content-type', 'must be application/json');
  // The same reading as ours (a member given twice, numbers as written), with the same helper: a feature, not framework.
  const json = readJson(event.body ?? '');
  if (json === undefined) return invalid('body', 'is not valid JSON');
  if (json.repeated !== undefined) return invalid(`body.${json.repeated.name}`, 'is given more than once');
  const body = json.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('body', 'must be a JSON object');
  const { name, categoryId, status = 'available', ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return invalid(`body.${Object.keys(rest)[0]}`, 'is not a known field');
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed.length < 1 || [...trimmed].length > 100) return invalid('body.name', 'must be 1 to 100 characters');
  if (HIDDEN.test(trimmed) || !VISIBLE.test(trimmed)) return invalid('body.name', 'must hold visible characters and no hidden ones');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1) return invalid('body.categoryId', 'must be a positive integer');
  if (typeof status !== 'string' || !STATUSES.has(status)) return invalid('body.status', 'must be one of available, pending, sold');
  return { name: trimmed, categoryId, status };
}

// The same rule as ours (shared/pets/idempotency.ts): visible ASCII, or the quoted form.
const QUOTED = /^"(?:[!#-\[\]-~]|\\["\\]){1,255}"$/;
const KEY_TEXT = /^(?!""$)(?:[!-~]{1,255}|"(?:[!#-\[\]-~]|\\["\\]){1,255}")$/;

/** The Idempotency-Key, unquoted; undefined when absent. */
function idempotencyKey(event: APIGatewayProxyEvent): string | Invalid | undefined {
  const text = event.headers?.['Idempotency-Key'] ?? event.headers?.['idempotency-key'];
  if (text === undefined) return undefined;
  const given = (event.multiValueHeaders?.['Idempotency-Key']?.length ?? 0) + (event.multiValueHeaders?.['idempotency-key']?.length ?? 0);
  if (given > 1) return invalid('header.Idempotency-Key', 'must be given at most once');
  if (!KEY_TEXT.test(text)) return invalid('header.Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  return QUOTED.test(text) ? text.slice(1, -1).replace(/\\(["\\])/g, '$1') : text;
}

const petBody = (id: number, pet: { name: string; categoryId: number; status: string }) =>
  `{"id":${id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`;

/** A live record of the same create replays it; of another body, 422. */
function answerRecord(context: Context, count: Count, record: Record<string, AttributeValue>, pet: { name: string; categoryId: number; status: string }): APIGatewayProxyResult {
  const recorded = record.pet?.M ?? {};
  const id = Number(recorded.id?.N);
  if (recorded.name?.S !== pet.name || Number(recorded.categoryId?.N) !== pet.categoryId || recorded.status?.S !== pet.status) {
    return error(context, count, 422, 'idempotency_key_reused', 'The Idempotency-Key was used with a different body.');
  }
  return respond(context, count, 201, petBody(id, pet), { Location: `/v1/pets/${id}`, 'Idempotent-Replayed': 'true' });
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'createPet', 'POST /v1/pets');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  const key = idempotencyKey(event);
  const pet = typeof key === 'object' ? key : parse(event);
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
  const recordKey = typeof key === 'string' ? { pk: { S: `IDEMPOTENCY#${context.caller?.keyId}#${key}` }, sk: { S: 'record' } } : undefined;
  const found = recordKey && db.send(new GetItemCommand({ TableName: TABLE, Key: recordKey, ConsistentRead: true }));
  found?.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  try {
    const id = Number((await nextId).Attributes?.value?.N);
    const petItem: Record<string, AttributeValue> = {
      pk: { S: 'PET' },
      sk: { S: pad(id) },
      id: { N: String(id) },
      name: { S: pet.name },
      categoryId: { N: String(pet.categoryId) },
      status: { S: pet.status },
      createdAt: { S: new Date(now()).toISOString() },
    };
    if (recordKey !== undefined && found !== undefined) {
      const nowSeconds = Math.floor(now() / 1000);
      const record = (await found).Item;
      if (record !== undefined && Number(record.expiresAt?.N) > nowSeconds) return answerRecord(context, decided.count, record, pet);
      try {
        await db.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: petItem, ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Put: {
                  TableName: TABLE,
                  Item: {
                    ...recordKey,
                    pet: { M: { id: petItem.id!, name: petItem.name!, categoryId: petItem.categoryId!, status: petItem.status! } },
                    expiresAt: { N: String(nowSeconds + 86_400) },
                    firstUsedAt: { S: new Date(now()).toISOString() },
                  },
                  ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
                  ExpressionAttributeValues: { ':now': { N: String(nowSeconds) } },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
            ],
          }),
        );
      } catch (cause) {
        if (!(cause instanceof TransactionCanceledException)) throw cause;
        const [, onRecord] = cause.CancellationReasons ?? [];
        if (onRecord?.Item !== undefined) {
          if (onRecord.Item.pet?.M?.id?.N === String(id)) return respond(context, decided.count, 201, petBody(id, pet), { Location: `/v1/pets/${id}` });
          return answerRecord(context, decided.count, onRecord.Item, pet);
        }
        if (onRecord?.Code === 'TransactionConflict') return error(context, decided.count, 409, 'idempotency_in_progress', 'Another request with this key is in progress.', { 'Retry-After': '1' });
        throw cause;
      }
      return respond(context, decided.count, 201, petBody(id, pet), { Location: `/v1/pets/${id}` });
    }
    await db.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: petItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return respond(context, decided.count, 201, petBody(id, pet), { Location: `/v1/pets/${id}` });
  } catch {
    return error(context, decided.count, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': '1' });
  }
};
