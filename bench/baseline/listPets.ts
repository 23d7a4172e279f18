import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { admitted, begin, refusedWithoutKey, db, error, pad, petJson, respond, TABLE, type Context } from './common';
import { cursorKeys, prepareCursorKeys, readCursor, signCursor } from './cursor';

const STATUSES = new Set(['available', 'pending', 'sold']);

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'listPets', 'GET /v1/pets');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  const query = event.queryStringParameters ?? {};
  let limit = 20;
  let invalid: { path: string; message: string } | undefined;
  for (const name of Object.keys(query)) if (name !== 'limit' && name !== 'status' && name !== 'cursor') invalid = { path: `query.${name}`, message: 'is not a known parameter' };
  if (query.limit !== undefined) {
    limit = /^[1-9][0-9]{0,3}$/.test(query.limit) ? Number(query.limit) : 0;
    if (limit < 1 || limit > 100) invalid = { path: 'query.limit', message: 'must be an integer from 1 to 100' };
  }
  const status = query.status;
  if (status !== undefined && !STATUSES.has(status)) invalid = { path: 'query.status', message: 'must be one of available, pending, sold' };
  let afterId = 0;
  if (invalid === undefined) {
    // The keys are read (when they must be) while DynamoDB is queried.
    prepareCursorKeys();
    if (query.cursor !== undefined) {
      let position: number | undefined;
      try {
        position = await readCursor(query.cursor, status);
      } catch {
        return unavailable(context);
      }
      if (position === undefined) invalid = { path: 'query.cursor', message: 'is malformed or has been altered' };
      else afterId = position;
    }
  }
  if (invalid !== undefined) {
    const decided = await admitted(context);
    return decided.refusal ?? error(context, decided.count, 400, 'invalid_request', `The request is invalid: ${invalid.path}: ${invalid.message}.`, undefined, invalid);
  }
  const read = db.send(
    status === undefined
      ? new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk AND sk > :after',
          ExpressionAttributeValues: { ':pk': { S: 'PET' }, ':after': { S: pad(afterId) } },
          Limit: limit + 1,
          ConsistentRead: true,
        })
      : new QueryCommand({
          TableName: TABLE,
          IndexName: 'byStatus',
          KeyConditionExpression: '#status = :status AND id > :after',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': { S: status }, ':after': { N: String(afterId) } },
          Limit: limit + 1,
        }),
  );
  read.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  let items;
  try {
    items = (await read).Items ?? [];
  } catch {
    return error(context, decided.count, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': '1' });
  }
  const page = items.slice(0, limit);
  const headers: Record<string, string> = {};
  if (items.length > limit) {
    let key: string;
    try {
      key = (await cursorKeys()).current;
    } catch {
      return error(context, decided.count, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': '1' });
    }
    const last = Number(page.at(-1)?.id?.N);
    const host = event.requestContext?.domainName ?? 'localhost';
    headers.Link = `<https://${host}/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}&cursor=${signCursor(key, last, status)}>; rel="next"`;
  }
  return respond(context, decided.count, 200, `[${page.map(petJson).join(',')}]`, headers);
};

async function unavailable(context: Context): Promise<APIGatewayProxyResult> {
  const decided = await admitted(context);
  return decided.refusal ?? error(context, decided.count, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': '1' });
}
