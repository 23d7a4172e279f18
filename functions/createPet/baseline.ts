import { randomBytes } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from '../../shared/http/body-limit';
import { readJson } from '../../shared/http/json-text';
import { isoTimestamp, now } from '../../shared/clock';
// The same id rule and retry bound as ours, with the same helpers: features, not framework.
import { drawPetId, YOUNG_ID_MS } from '../../shared/pets/pet-ids';
import { attemptsOnlyUntil } from '../../shared/dynamodb/last-attempt';
import {
  admitted,
  begin,
  refusedWithoutKey,
  db,
  error,
  indexInfix,
  pad,
  petPartition,
  PET_SHARDS,
  RELEASE_PET_SECONDS,
  respond,
  TABLE,
  type Context,
  type Count,
} from '../../bench/baseline/common';

const STATUSES = new Set(['available', 'pending', 'sold']);

type Invalid = { path: string; message: string };
const invalid = (path: string, message: string): Invalid => ({ path, message });

// The same hidden and visible characters as ours (decisions.md), written out by hand.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rule finds
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const VISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rule finds
  /[^\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u200b-\u200d\u2060\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

function parse(event: APIGatewayProxyEvent): { name: string; categoryId: number; status: string } | Invalid {
  if (!/^application\/json\b/i.test(event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? ''))
    return invalid('header.content-type', 'must be application/json');
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
  if (HIDDEN.test(trimmed) || !VISIBLE.test(trimmed))
    return invalid('body.name', 'must hold visible characters and no hidden ones');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1)
    return invalid('body.categoryId', 'must be a positive integer');
  if (typeof status !== 'string' || !STATUSES.has(status))
    return invalid('body.status', 'must be one of available, pending, sold');
  return { name: trimmed, categoryId, status };
}

// The same rule as ours (shared/pets/idempotency.ts): visible ASCII, or the quoted form.
const QUOTED = /^"(?:[!#-[\]-~]|\\["\\]){1,255}"$/;
const KEY_TEXT = /^(?!""$)(?:[!-~]{1,255}|"(?:[!#-[\]-~]|\\["\\]){1,255}")$/;

/** The Idempotency-Key, unquoted; undefined when absent. */
function idempotencyKey(event: APIGatewayProxyEvent): string | Invalid | undefined {
  const text = event.headers?.['Idempotency-Key'] ?? event.headers?.['idempotency-key'];
  if (text === undefined) return undefined;
  const given =
    (event.multiValueHeaders?.['Idempotency-Key']?.length ?? 0) +
    (event.multiValueHeaders?.['idempotency-key']?.length ?? 0);
  if (given > 1) return invalid('header.Idempotency-Key', 'must be given at most once');
  if (!KEY_TEXT.test(text)) return invalid('header.Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  return QUOTED.test(text) ? text.slice(1, -1).replace(/\\(["\\])/g, '$1') : text;
}

/** A create draws a new id when its id is taken (1 in 4,096 within a millisecond): this many draws at most, as ours. */
const MAX_DRAWS = 3;

/** The write's retries only while its id is young (YOUNG_ID_MS after the draw); past it the send fails (a 503). */
const young = <C extends PutItemCommand | TransactWriteItemsCommand>(command: C, drawnAtMs: number): C =>
  attemptsOnlyUntil(command, drawnAtMs + YOUNG_ID_MS, now);

/** The create that writes a pet's item: when, its nonce, and whether it writes the release check's pets. */
interface CreateAttempt {
  readonly nowMs: number;
  readonly nonce: string;
  readonly release: boolean;
}

/** The pet's item: in its shard, the status as `statusShard`, its `listShard`, when written and the create's nonce. */
function itemOf(
  id: number,
  pet: { name: string; categoryId: number; status: string },
  { nowMs, nonce, release }: CreateAttempt,
): Record<string, AttributeValue> {
  const fields = { id: { N: String(id) }, name: { S: pet.name }, categoryId: { N: String(pet.categoryId) } };
  const infix = indexInfix(release);
  const item: Record<string, AttributeValue> = {
    pk: { S: petPartition(id, release) },
    sk: { S: pad(id) },
    ...fields,
    statusShard: { S: `${pet.status}#${infix}${id % PET_SHARDS}` },
    listShard: { S: `pets#${infix}${id % PET_SHARDS}` },
    nonce: { S: nonce },
  };
  if (release) item.expiresAt = { N: String(Math.floor(nowMs / 1000) + RELEASE_PET_SECONDS) };
  return item;
}

const petBody = (id: number, pet: { name: string; categoryId: number; status: string }) =>
  `{"id":${id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`;

/** A live record of the same create replays it; of another body, 422. */
function answerRecord(
  context: Context,
  count: Count,
  record: Record<string, AttributeValue>,
  pet: { name: string; categoryId: number; status: string },
): APIGatewayProxyResult {
  const recorded = record.pet?.M ?? {};
  const id = Number(recorded.id?.N);
  if (
    recorded.name?.S !== pet.name ||
    Number(recorded.categoryId?.N) !== pet.categoryId ||
    recorded.status?.S !== pet.status
  ) {
    return error(context, count, {
      status: 422,
      code: 'idempotency_key_reused',
      message: 'The Idempotency-Key was used with a different body.',
    });
  }
  return respond(context, count, {
    status: 201,
    body: petBody(id, pet),
    headers: { Location: `/v1/pets/${id}`, 'Idempotent-Replayed': 'true' },
  });
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'createPet', 'POST /v1/pets');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  const key = idempotencyKey(event);
  // With a key, its record is read while the request is counted.
  const recordKey =
    typeof key === 'string'
      ? { pk: { S: `IDEMPOTENCY#${context.caller?.keyId}#${key}` }, sk: { S: 'record' } }
      : undefined;
  const found = recordKey && db.send(new GetItemCommand({ TableName: TABLE, Key: recordKey, ConsistentRead: true }));
  found?.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  // As ours, the body only once the request is admitted.
  if (Buffer.byteLength(event.body ?? '') > MAX_BODY_BYTES)
    return error(context, decided.count, { status: 413, code: 'invalid_request', message: BODY_TOO_LARGE.message });
  const pet = typeof key === 'object' ? key : parse(event);
  if ('path' in pet)
    return error(context, decided.count, {
      status: 400,
      code: 'invalid_request',
      message: `The request is invalid: ${pet.path}: ${pet.message}.`,
      detail: pet,
    });
  const created = (id: number) =>
    respond(context, decided.count, { status: 201, body: petBody(id, pet), headers: { Location: `/v1/pets/${id}` } });
  try {
    const nonce = randomBytes(12).toString('base64url');
    if (recordKey !== undefined && found !== undefined) {
      const record = (await found).Item;
      if (record !== undefined && Number(record.expiresAt?.N) > Math.floor(now() / 1000))
        return answerRecord(context, decided.count, record, pet);
      for (let draw = 1; ; draw += 1) {
        const nowMs = now();
        const id = drawPetId(nowMs);
        const nowSeconds = Math.floor(nowMs / 1000);
        try {
          await db.send(
            young(
              new TransactWriteItemsCommand({
                TransactItems: [
                  {
                    Put: {
                      TableName: TABLE,
                      Item: itemOf(id, pet, { nowMs, nonce, release: context.caller?.release === true }),
                      ConditionExpression: 'attribute_not_exists(pk)',
                    },
                  },
                  {
                    Put: {
                      TableName: TABLE,
                      Item: {
                        ...recordKey,
                        pet: {
                          M: {
                            id: { N: String(id) },
                            name: { S: pet.name },
                            categoryId: { N: String(pet.categoryId) },
                            status: { S: pet.status },
                          },
                        },
                        expiresAt: { N: String(nowSeconds + 86_400) },
                        firstUsedAt: { S: isoTimestamp(nowMs) },
                      },
                      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
                      ExpressionAttributeValues: { ':now': { N: String(nowSeconds) } },
                      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                    },
                  },
                ],
              }),
              nowMs,
            ),
          );
          return created(id);
        } catch (cause) {
          if (!(cause instanceof TransactionCanceledException)) throw cause;
          const reasons = cause.CancellationReasons ?? [];
          const [onPet, onRecord] = reasons;
          if (onRecord?.Item !== undefined) {
            // Another request's with the key (a retry of ours is answered by its ClientRequestToken, as in ours).
            return answerRecord(context, decided.count, onRecord.Item, pet);
          }
          if (
            onRecord?.Code === 'ConditionalCheckFailed' ||
            reasons.some((reason) => reason.Code === 'TransactionConflict')
          ) {
            return error(context, decided.count, {
              status: 409,
              code: 'idempotency_in_progress',
              message: 'Another request with this key is in progress.',
              headers: { 'Retry-After': '1' },
            });
          }
          // Another create's pet holds the id: draw again, a few times at most.
          if (onPet?.Code !== 'ConditionalCheckFailed' || draw === MAX_DRAWS) throw cause;
        }
      }
    }
    for (let draw = 1; ; draw += 1) {
      const nowMs = now();
      const id = drawPetId(nowMs);
      try {
        await db.send(
          young(
            new PutItemCommand({
              TableName: TABLE,
              Item: itemOf(id, pet, { nowMs, nonce, release: context.caller?.release === true }),
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
            nowMs,
          ),
        );
        return created(id);
      } catch (cause) {
        if (!(cause instanceof ConditionalCheckFailedException)) throw cause;
        // Our own write whose reply was lost (its nonce is ours alone), or another create's pet: draw again.
        if (cause.Item?.nonce?.S === nonce) return created(id);
        if (draw === MAX_DRAWS) throw cause;
      }
    }
  } catch {
    return error(context, decided.count, {
      status: 503,
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable.',
      headers: {
        'Retry-After': '1',
      },
    });
  }
};
