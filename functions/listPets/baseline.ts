import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { now } from '../../shared/clock';
// The same page rule as ours, with the same helpers (the merge of the shards' queries, the ids a
// listing may show, the cache of a busy first page): features, not framework.
import { FirstPageCache } from '../../shared/pets/first-page-cache';
import { mergedPage, type MergedPage, type SourcePage } from '../../shared/pets/page-merge';
import { lastIdDrawnBy, LISTING_SETTLE_MS } from '../../shared/pets/pet-ids';
import type { PetStatus } from '../../shared/pets/schema';
import {
  admitted,
  begin,
  refusedWithoutKey,
  db,
  error,
  indexInfix,
  pad,
  petJson,
  petOf,
  PET_SHARDS,
  respond,
  TABLE,
  type Context,
} from '../../bench/baseline/common';
import { cursorKeys, prepareCursorKeys, readCursor, signCursor } from '../../bench/baseline/cursor';

const STATUSES = new Set(['available', 'pending', 'sold']);
/** As ours reads LISTING_SETTLE_MS and FIRST_PAGE_CACHE. */
const SETTLE_MS = process.env.LISTING_SETTLE_MS ? Number(process.env.LISTING_SETTLE_MS) : LISTING_SETTLE_MS;
/** One per pet space, as ours (the releases' pets apart). */
const caches =
  process.env.FIRST_PAGE_CACHE === 'off'
    ? undefined
    : {
        customers: new FirstPageCache<MergedPage & { newestId: number }>(now),
        releases: new FirstPageCache<MergedPage & { newestId: number }>(now),
      };
/** As ours: pages without a filter read the table's shards and the listing index's (petsById) in turn, pages with one petsByStatus's and petsByStatusAgain's, each filter counted apart; LISTING_SETS=1, the first of each alone. */
const pagesRead = new Map<string | undefined, number>();
const SETS = process.env.LISTING_SETS === '1' ? 1 : 2;

/** The page a request asks for. */
interface PageAsked {
  readonly afterId: number;
  readonly limit: number;
  readonly status: string | undefined;
  /** The release check's pets, not the customers'. */
  readonly release: boolean;
  /** The previous page's bound, from the cursor (0: a first page). */
  readonly cursorNewestId: number;
}

/** A page above `afterId`, merged from each source's eventually consistent query; no id drawn within the settle time, but every id up to the cursor's bound. */
async function page({
  afterId,
  limit,
  status,
  release,
  cursorNewestId,
}: PageAsked): Promise<MergedPage & { newestId: number }> {
  const newestId = Math.max(lastIdDrawnBy(now() - SETTLE_MS), cursorNewestId);
  const turn = pagesRead.get(status) ?? 0;
  pagesRead.set(status, turn + 1);
  const second = turn % SETS === 1;
  const source: PageSource = { status, second, newestId, release };
  const merged = await mergedPage(
    PET_SHARDS,
    (shard, after, share) => sourcePage(source, shard, after, share),
    afterId,
    limit,
  );
  return { ...merged, newestId };
}

/** What each shard's query for one page shares. */
interface PageSource {
  readonly status: string | undefined;
  /** This page reads the second listing set (petsById, or petsByStatusAgain). */
  readonly second: boolean;
  /** The highest id the page may show. */
  readonly newestId: number;
  /** The release check's pets, not the customers'. */
  readonly release: boolean;
}

/** Shard n: `PET#n` (or `pets#n` in petsById; by status: `<status>#n` in petsByStatus or petsByStatusAgain); the releases' `RELEASES#PET#n`, `pets#releases#n`, `<status>#releases#n`. */
async function sourcePage(
  { status, second, newestId, release }: PageSource,
  shard: number,
  after: number,
  limit: number,
): Promise<SourcePage> {
  const fromListIndex = status === undefined && second;
  const infix = indexInfix(release);
  if (after >= newestId) return { pets: [], resumeAfter: undefined };
  const { Items = [], LastEvaluatedKey } = await db.send(
    fromListIndex
      ? new QueryCommand({
          TableName: TABLE,
          IndexName: 'petsById',
          KeyConditionExpression: 'listShard = :key AND id BETWEEN :first AND :last',
          ExpressionAttributeValues: {
            ':key': { S: `pets#${infix}${shard}` },
            ':first': { N: String(after + 1) },
            ':last': { N: String(newestId) },
          },
          Limit: limit,
        })
      : status === undefined
        ? new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
            ExpressionAttributeValues: {
              ':pk': { S: `${release ? 'RELEASES#' : ''}PET#${shard}` },
              ':first': { S: pad(after + 1) },
              ':last': { S: pad(newestId) },
            },
            Limit: limit,
          })
        : new QueryCommand({
            TableName: TABLE,
            IndexName: second ? 'petsByStatusAgain' : 'petsByStatus',
            KeyConditionExpression: '#key = :key AND id BETWEEN :first AND :last',
            ExpressionAttributeNames: { '#key': 'statusShard' },
            ExpressionAttributeValues: {
              ':key': { S: `${status}#${infix}${shard}` },
              ':first': { N: String(after + 1) },
              ':last': { N: String(newestId) },
            },
            Limit: limit,
          }),
  );
  const stoppedAt = LastEvaluatedKey?.sk?.S;
  return { pets: Items.map(petOf), resumeAfter: stoppedAt === undefined ? undefined : Number(stoppedAt) };
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const context = await begin(event, 'listPets', 'GET /v1/pets');
  const refusal = await refusedWithoutKey(context);
  if (refusal !== undefined) return refusal;
  const query = event.queryStringParameters ?? {};
  let limit = 20;
  let invalid: { path: string; message: string } | undefined;
  for (const name of Object.keys(query))
    if (name !== 'limit' && name !== 'status' && name !== 'cursor')
      invalid = { path: `query.${name}`, message: 'is not a known parameter' };
  if (query.limit !== undefined) {
    limit = /^[1-9][0-9]{0,3}$/.test(query.limit) ? Number(query.limit) : 0;
    if (limit < 1 || limit > 100) invalid = { path: 'query.limit', message: 'must be an integer from 1 to 100' };
  }
  const status = query.status;
  if (status !== undefined && !STATUSES.has(status))
    invalid = { path: 'query.status', message: 'must be one of available, pending, sold' };
  let afterId = 0;
  let cursorNewestId = 0;
  if (invalid === undefined) {
    // The keys are read (when they must be) while DynamoDB is queried.
    prepareCursorKeys();
    if (query.cursor !== undefined) {
      let position: { afterId: number; newestId: number } | undefined;
      try {
        position = await readCursor(query.cursor, status);
      } catch {
        return unavailable(context);
      }
      if (position === undefined) invalid = { path: 'query.cursor', message: 'is malformed or has been altered' };
      else ({ afterId, newestId: cursorNewestId } = position);
    }
  }
  if (invalid !== undefined) {
    const decided = await admitted(context);
    return (
      decided.refusal ??
      error(context, decided.count, {
        status: 400,
        code: 'invalid_request',
        message: `The request is invalid: ${invalid.path}: ${invalid.message}.`,
        detail: invalid,
      })
    );
  }
  const release = context.caller?.release === true;
  const cache = caches === undefined ? undefined : release ? caches.releases : caches.customers;
  const read =
    afterId === 0 && cache !== undefined
      ? cache.page(status as PetStatus | undefined, limit, () =>
          page({ afterId, limit, status, release, cursorNewestId: 0 }),
        )
      : page({ afterId, limit, status, release, cursorNewestId });
  read.catch(() => {});
  const decided = await admitted(context);
  if (decided.refusal) return decided.refusal;
  let listed: Awaited<typeof read>;
  try {
    listed = await read;
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
  const headers: Record<string, string> = {};
  const last = listed.pets.at(-1);
  if (listed.hasMore && last !== undefined) {
    let key: string;
    try {
      key = (await cursorKeys()).current;
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
    const host = event.requestContext?.domainName ?? 'localhost';
    headers.Link = `<https://${host}/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}&cursor=${signCursor(key, last.id, status, listed.newestId)}>; rel="next"`;
  }
  return respond(context, decided.count, {
    status: 200,
    body: `[${listed.pets.map(petJson).join(',')}]`,
    headers: headers,
  });
};

async function unavailable(context: Context): Promise<APIGatewayProxyResult> {
  const decided = await admitted(context);
  return (
    decided.refusal ??
    error(context, decided.count, {
      status: 503,
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable.',
      headers: {
        'Retry-After': '1',
      },
    })
  );
}
