import { ConditionalCheckFailedException, UpdateItemCommand, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { integer, numberIn, numberOf, text, type Item } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import type { RateLimits } from './plans';
import { SUSPENSION_RULE } from './suspension';
import { windowsAt, type Windows } from './windows';

/**
 * Request counters in DynamoDB, exact across concurrent requests and Lambda instances: every
 * decision is a conditional write, so two requests can never both take the last slot.
 *
 * One item per subject (`pk = RATE#<subject>`, `sk = counters`): the current minute and day
 * window ids with their counts, the refusal streak (the window it belongs to, its first refused
 * request's arrival, its count), the suspension end, and `expiresAt` (TTL) so idle subjects
 * disappear. The common case, a request inside the current windows with room left, is one
 * `UpdateItem`. A refused request writes nothing to the counts (it uses no quota); it only adds to
 * the refusal streak.
 */
export type Admission =
  | { readonly outcome: 'admitted'; readonly minuteCount: number; readonly dayCount: number }
  | { readonly outcome: 'refused'; readonly window: 'minute' | 'day'; readonly minuteCount: number; readonly dayCount: number }
  | { readonly outcome: 'suspended'; readonly until: number; readonly minuteCount: number; readonly dayCount: number };

export interface RateCounterStore {
  /**
   * Every DynamoDB call it makes ends by `deadline` (the SDK's own bounds otherwise). `arrivedAt`:
   * when the request arrived at the gateway (the suspension rule counts by it), `nowMs` if unknown.
   */
  admit(subject: string, limits: RateLimits, nowMs: number, deadline?: CallDeadline, arrivedAt?: number): Promise<Admission>;
}

interface CounterState {
  readonly exists: boolean;
  readonly minute: number;
  readonly minuteCount: number;
  readonly day: number;
  readonly dayCount: number;
  readonly suspendedUntil: number;
  /** The end of the window the refusal streak belongs to (0: none). */
  readonly refusalWindowEnd: number;
  readonly refusalStart: number;
}

type UpdateResult = { ok: true; attributes: Item } | { ok: false; state: CounterState };
type Update = (input: Omit<UpdateItemCommandInput, 'TableName'>) => Promise<UpdateResult>;

/** Each conflict means another request changed the item first; a few rounds always settle it. */
const MAX_ROUNDS = 10;
/** Keep an idle subject's item a day past its day window (and past any suspension). */
const RETENTION_MS = 86_400_000;
const ONE = integer(1);
const ZERO = integer(0);
const COUNTERS_SORT_KEY = text('counters');

export class DynamoDbRateCounterStore implements RateCounterStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async admit(subject: string, limits: RateLimits, nowMs: number, deadline?: CallDeadline, arrivedAt: number = nowMs): Promise<Admission> {
    const key = { pk: text(`RATE#${subject}`), sk: COUNTERS_SORT_KEY };
    const update = (input: Omit<UpdateItemCommandInput, 'TableName'>) => this.#update(input, deadline);
    let windows = windowsAt(nowMs);
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const common = await this.#countInCurrentWindows(update, key, windows, limits, nowMs);
      if (common.ok) return { outcome: 'admitted', minuteCount: common.minuteCount, dayCount: common.dayCount };
      const state = common.state;
      if (state.minute > windows.minute.id) {
        // Another instance whose clock is a little ahead already opened the next minute: join it
        // rather than reopen (and so reset) the one this clock still shows.
        windows = windowsAt(state.minute * 60_000);
        continue;
      }
      if (state.suspendedUntil > nowMs) {
        return { outcome: 'suspended', until: state.suspendedUntil, ...countsIn(state, windows) };
      }
      const counts = countsIn(state, windows);
      if (counts.minuteCount < limits.perMinute && counts.dayCount < limits.perDay) {
        // A new minute or day began (or this is the subject's first request): open the windows.
        if (await this.#openWindows(update, key, state, windows, nowMs)) {
          return { outcome: 'admitted', minuteCount: counts.minuteCount + 1, dayCount: counts.dayCount + 1 };
        }
        continue;
      }
      // The window that refused: the day once its quota is used up (when both are, the one that
      // frees up last), else the minute.
      const window = counts.dayCount >= limits.perDay ? 'day' : 'minute';
      const refusal = await this.#recordRefusal(update, key, state, windows[window].resetAt, nowMs, arrivedAt);
      if (refusal === 'conflict') continue;
      return refusal === 'refused' ? { outcome: 'refused', window, ...counts } : { outcome: 'suspended', until: refusal.suspendedUntil, ...counts };
    }
    throw new Error(`rate counter for ${subject}: no decision after ${MAX_ROUNDS} rounds of conflicting writes`);
  }

  /** The common case: both windows current, room in both, not suspended. */
  async #countInCurrentWindows(
    update: Update,
    key: Item,
    windows: Windows,
    limits: RateLimits,
    nowMs: number,
  ): Promise<{ ok: true; minuteCount: number; dayCount: number } | { ok: false; state: CounterState }> {
    const result = await update({
      Key: key,
      UpdateExpression: 'ADD minuteCount :one, dayCount :one SET expiresAt = :expiresAt',
      ConditionExpression:
        '#minute = :minute AND #day = :day AND minuteCount < :minuteLimit AND dayCount < :dayLimit AND ' +
        '(attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now)',
      ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
      ExpressionAttributeValues: {
        ':one': ONE,
        ':minute': integer(windows.minute.id),
        ':day': integer(windows.day.id),
        ':minuteLimit': integer(limits.perMinute),
        ':dayLimit': integer(limits.perDay),
        ':now': integer(nowMs),
        ':expiresAt': integer(expiresAt(windows, nowMs)),
      },
      ReturnValues: 'UPDATED_NEW',
    });
    if (!result.ok) return { ok: false, state: result.state };
    return { ok: true, minuteCount: numberOf(result.attributes, 'minuteCount'), dayCount: numberOf(result.attributes, 'dayCount') };
  }

  /**
   * Starts the current minute (and day, if that changed too) with this request as its first,
   * guarded by the values just read, so that of two requests racing to do it only one does.
   */
  async #openWindows(update: Update, key: Item, state: CounterState, windows: Windows, nowMs: number): Promise<boolean> {
    const sameDay = state.exists && state.day === windows.day.id;
    const result = await update({
      Key: key,
      UpdateExpression: sameDay
        ? 'SET #minute = :minute, minuteCount = :one, expiresAt = :expiresAt ADD dayCount :one'
        : 'SET #minute = :minute, minuteCount = :one, #day = :day, dayCount = :one, expiresAt = :expiresAt',
      ConditionExpression: state.exists
        ? '#minute = :seenMinute AND #day = :seenDay AND dayCount = :seenDayCount'
        : 'attribute_not_exists(pk)',
      ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
      ExpressionAttributeValues: {
        ':one': ONE,
        ':minute': integer(windows.minute.id),
        ...(sameDay ? {} : { ':day': integer(windows.day.id) }),
        ':expiresAt': integer(expiresAt(windows, nowMs)),
        ...(state.exists ? { ':seenMinute': integer(state.minute), ':seenDay': integer(state.day), ':seenDayCount': integer(state.dayCount) } : {}),
      },
    });
    return result.ok;
  }

  /**
   * Adds a refused request to the refusal streak of the window that refused it (the first refusal
   * in a window opens that window's streak), and suspends the subject when the streak reaches the
   * rule's count. A streak belongs to one window: a client that waited as its Retry-After said
   * and is refused again is refused in another window, whose streak starts afresh.
   */
  async #recordRefusal(
    update: Update,
    key: Item,
    state: CounterState,
    windowEnd: number,
    nowMs: number,
    arrivedAt: number,
  ): Promise<'refused' | 'conflict' | { suspendedUntil: number }> {
    if (state.refusalWindowEnd !== windowEnd) {
      // The streak starts at the arrival of its window's first refused request.
      const opened = await update({
        Key: key,
        UpdateExpression: 'SET refusalWindowEnd = :windowEnd, refusalStart = :arrivedAt, refusals = :zero',
        ConditionExpression: 'attribute_not_exists(refusalWindowEnd) OR refusalWindowEnd = :seenWindowEnd',
        ExpressionAttributeValues: {
          ':windowEnd': integer(windowEnd),
          ':arrivedAt': integer(arrivedAt),
          ':zero': ZERO,
          ':seenWindowEnd': integer(state.refusalWindowEnd),
        },
      });
      return opened.ok ? 'refused' : 'conflict';
    }
    // Sent before its client could have had the first refusal's Retry-After (the same burst): not counted.
    if (arrivedAt < state.refusalStart + SUSPENSION_RULE.ignoredRetryAfterMs) return 'refused';
    const counted = await update({
      Key: key,
      UpdateExpression: 'ADD refusals :one',
      ConditionExpression: 'refusalWindowEnd = :windowEnd',
      ExpressionAttributeValues: { ':one': ONE, ':windowEnd': integer(windowEnd) },
      ReturnValues: 'UPDATED_NEW',
    });
    if (!counted.ok) return 'conflict';
    if (numberOf(counted.attributes, 'refusals') < SUSPENSION_RULE.refusalsToSuspend) return 'refused';
    const until = nowMs + SUSPENSION_RULE.suspensionMs;
    // The suspension ends the streak: once it is over, the window's next refusal opens a new one
    // (it matters for the day, which outlasts a suspension), so that a client that waited as the
    // suspension's Retry-After said is not suspended again for the refusals it was suspended for.
    const suspended = await update({
      Key: key,
      UpdateExpression: 'SET suspendedUntil = :until, expiresAt = :expiresAt REMOVE refusalWindowEnd',
      ConditionExpression: 'attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now',
      ExpressionAttributeValues: { ':until': integer(until), ':now': integer(nowMs), ':expiresAt': integer(ttlSeconds(until + RETENTION_MS)) },
    });
    if (suspended.ok) return { suspendedUntil: until };
    // The write's one condition failed, so another request suspended the subject first (its end is
    // after now): that end is the one every answer carries.
    return { suspendedUntil: suspended.state.suspendedUntil };
  }

  async #update(input: Omit<UpdateItemCommandInput, 'TableName'>, deadline: CallDeadline | undefined): Promise<UpdateResult> {
    // Completed in place (every caller passes a fresh object): a spread costs a microsecond here.
    const complete = input as UpdateItemCommandInput;
    complete.TableName = this.tableName;
    complete.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
    try {
      const { Attributes = {} } = await this.client.send(new UpdateItemCommand(complete), { abortSignal: deadline?.signalForCall() });
      return { ok: true, attributes: Attributes };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { ok: false, state: toState(error.Item) };
    }
  }
}

function toState(item: Item | undefined): CounterState {
  const number = (name: string) => numberIn(item, name) ?? 0;
  return {
    exists: item !== undefined,
    minute: number('minute'),
    minuteCount: number('minuteCount'),
    day: number('day'),
    dayCount: number('dayCount'),
    suspendedUntil: number('suspendedUntil'),
    refusalWindowEnd: number('refusalWindowEnd'),
    refusalStart: number('refusalStart'),
  };
}

/** The counts that apply now: a count from an earlier window is zero in the current one. */
function countsIn(state: CounterState, windows: Windows): { minuteCount: number; dayCount: number } {
  return {
    minuteCount: state.minute === windows.minute.id ? state.minuteCount : 0,
    dayCount: state.day === windows.day.id ? state.dayCount : 0,
  };
}

function expiresAt(windows: Windows, nowMs: number): number {
  return ttlSeconds(Math.max(windows.day.resetAt, nowMs) + RETENTION_MS);
}

/** DynamoDB TTL reads whole seconds since the epoch. */
const ttlSeconds = (ms: number): number => Math.ceil(ms / 1000);
