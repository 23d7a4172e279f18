import { setTimeout } from 'node:timers/promises';
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  TransactionConflictException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type DynamoDBClient,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { integer, numberIn, numberOf, text, type Item } from '../dynamodb/attribute-values';
import type { CallDeadline } from '../dynamodb/call-deadline';
import { DATASTORE_RETRY_AFTER_SECONDS } from '../dynamodb/datastore-errors';
import { ServiceUnavailableError } from '../errors';
import { estimatedCount, SHARD_THRESHOLD_PER_MINUTE, shardCountFor, sharesOf } from './counter-shards';
import type { RateLimits } from './plans';
import { LayoutMemory, type DayLayout } from './shard-memory';
import { refusalsAllowed, SUSPENSION_RULE } from './suspension';
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
 *
 * A key whose plan allows more than one item can take (counter-shards.ts) is counted on N shards
 * (`pk = RATE#<subject>#<0..N-1>`), each admitting its share of the limits alone, on the same
 * rules; its own item then holds the day's layout (`shards`, set by the day's first request, for
 * the whole day), the refusal streak and the suspension (copied onto the shards, which decide
 * alone). A request counts on one shard; a full one sends it to another, and it is refused only
 * once every shard is full in its window.
 */
export type Admission =
  | { readonly outcome: 'admitted'; readonly minuteCount: number; readonly dayCount: number }
  | {
      readonly outcome: 'refused';
      readonly window: 'minute' | 'day';
      readonly minuteCount: number;
      readonly dayCount: number;
    }
  | { readonly outcome: 'suspended'; readonly until: number; readonly minuteCount: number; readonly dayCount: number };

/** The request an admission is for, besides its subject, limits and time. */
export interface AdmissionRequest {
  /** Every DynamoDB call the admission makes ends by it (the SDK's own bounds otherwise). */
  readonly deadline?: CallDeadline;
  /** When the request arrived at the gateway (the suspension rule counts by it); `nowMs` if unknown. */
  readonly arrivedAt?: number;
}

export interface RateCounterStore {
  admit(subject: string, limits: RateLimits, nowMs: number, request?: AdmissionRequest): Promise<Admission>;
}

interface CounterState {
  readonly exists: boolean;
  readonly minute: number;
  readonly minuteCount: number;
  readonly day: number;
  readonly dayCount: number;
  readonly suspendedUntil: number;
  /** On a key's item: how many shards count the key on `day` (0: none, counted on this item). */
  readonly shards: number;
  /** The end of the window the refusal streak belongs to (0: none). */
  readonly refusalWindowEnd: number;
  readonly refusalStart: number;
}

/** A suspension's end, or 'conflict': another write changed the item first, so decide again. */
type Suspension = { suspendedUntil: number } | 'conflict';

type UpdateResult = { ok: true; attributes: Item } | { ok: false; state: CounterState };
type Update = (input: Omit<UpdateItemCommandInput, 'TableName'>) => Promise<UpdateResult>;

/** One request counted on one counter item (a key's own item, or one of its shards). */
interface Counting {
  /** Writes to the table, bounded by the request's deadline. */
  readonly update: Update;
  /** The item counted on. */
  readonly key: Item;
  /** The limits that item admits (a shard's: its share of the key's). */
  readonly limits: RateLimits;
  readonly nowMs: number;
}

/** One request being decided, counted on its key's own item (`key`) unless today is sharded. */
interface Attempt extends Counting {
  readonly subject: string;
  /** When the request arrived at the gateway (the suspension rule counts by it). */
  readonly arrivedAt: number;
  readonly deadline: CallDeadline | undefined;
}

/** A refused request's place in a refusal streak. */
interface Refusal {
  /** The end of the window that refused it: the streak belongs to that window. */
  readonly windowEnd: number;
  /** How many refusals the streak may hold before the subject is suspended (suspension.ts). */
  readonly allowed: number;
  /** Suspends the subject, once the streak passes `allowed`. */
  readonly suspend: () => Promise<Suspension>;
}

/** Each conflict means another request changed the item first; a few rounds always settle it. */
const MAX_ROUNDS = 10;
/** Keep an idle subject's item a day past its day window (and past any suspension). */
const RETENTION_MS = 86_400_000;
const ONE = integer(1);
const ZERO = integer(0);
const COUNTERS_SORT_KEY = text('counters');
/** Tries of a write that meets a suspension's transaction, and the wait before each next one. */
const CONFLICT_ATTEMPTS = 3;
const CONFLICT_WAIT_MS = 20;
const SUSPEND_EXPRESSION = 'SET suspendedUntil = :until, expiresAt = :expiresAt REMOVE refusalWindowEnd';
const NOT_SUSPENDED = 'attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now';

/** A subject's item: its counts when on one item, its refusal streak and suspension always. */
const counterKey = (subject: string): Item => ({ pk: text(`RATE#${subject}`), sk: COUNTERS_SORT_KEY });
/** A sharded key's shard `shard` (0 to N - 1), a partition of its own. */
const shardKey = (subject: string, shard: number): Item => ({
  pk: text(`RATE#${subject}#${shard}`),
  sk: COUNTERS_SORT_KEY,
});

/** The store's settings besides its table. */
export interface CounterStoreOptions {
  /** Keys whose plan allows more a minute are counted on shards (counter-shards.ts); set low in tests. */
  readonly shardThresholdPerMinute?: number;
  /** Picks a shard: [0, 1). */
  readonly random?: () => number;
}

/** What counting on one item came to. */
type Counted =
  | { readonly outcome: 'admitted'; readonly minuteCount: number; readonly dayCount: number }
  | { readonly outcome: 'suspended'; readonly until: number; readonly minuteCount: number; readonly dayCount: number }
  | {
      readonly outcome: 'full';
      readonly window: 'minute' | 'day';
      readonly state: CounterState;
      readonly windows: Windows;
      readonly minuteCount: number;
      readonly dayCount: number;
    }
  /** The key's item says today is counted on shards (the key's base item only). */
  | { readonly outcome: 'sharded'; readonly shards: number; readonly windows: Windows };

export class DynamoDbRateCounterStore implements RateCounterStore {
  readonly #layouts = new LayoutMemory();
  readonly #threshold: number;
  readonly #random: () => number;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    options: CounterStoreOptions = {},
  ) {
    this.#threshold = options.shardThresholdPerMinute ?? SHARD_THRESHOLD_PER_MINUTE;
    this.#random = options.random ?? Math.random;
  }

  async admit(
    subject: string,
    limits: RateLimits,
    nowMs: number,
    { deadline, arrivedAt = nowMs }: AdmissionRequest = {},
  ): Promise<Admission> {
    const key = counterKey(subject);
    const update = (input: Omit<UpdateItemCommandInput, 'TableName'>) => this.#update(input, deadline);
    const attempt: Attempt = { update, key, limits, nowMs, subject, arrivedAt, deadline };
    let windows = windowsAt(nowMs);
    // Keys below the threshold go straight to their one item, whose answer says if today is
    // sharded after all (a plan lowered today); the others learn today's layout once a day.
    let layout = this.#layouts.get(subject, windows);
    const wanted = shardCountFor(limits, this.#threshold);
    if (layout === undefined && wanted > 1) {
      const claimed = await this.#claimDay(attempt, windows, wanted);
      layout = this.#layouts.remember(subject, windows, claimed.shards);
      if (claimed.suspendedUntil > nowMs)
        return { outcome: 'suspended', until: claimed.suspendedUntil, minuteCount: 0, dayCount: 0 };
    }
    if (layout === undefined || layout.shards === 1) {
      const single = await this.#admitOnOne(attempt, windows);
      if (single.outcome !== 'sharded') return single;
      windows = single.windows;
      layout = this.#layouts.remember(subject, windows, single.shards);
    }
    return this.#admitOnShards(attempt, layout, windows);
  }

  /** A key counted on its one item: the request is admitted there, or refused and its refusal recorded on it. */
  async #admitOnOne(attempt: Attempt, windows: Windows): Promise<Admission | Extract<Counted, { outcome: 'sharded' }>> {
    const { update, key, limits, nowMs } = attempt;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const counted = await this.#countOn(attempt, windows);
      if (counted.outcome !== 'full') return counted;
      const suspend = () => this.#suspendOne(update, key, nowMs);
      const refusal = await uncountedWhenUnavailable(
        this.#recordRefusal(attempt, counted.state, {
          windowEnd: counted.windows[counted.window].resetAt,
          allowed: refusalsAllowed(limits),
          suspend,
        }),
      );
      if (refusal !== 'conflict') return refusalAdmission(refusal, counted.window, counted);
    }
    throw noDecision(key);
  }

  /**
   * A key counted on shards: the request counts on a shard this container does not know to be
   * full, picked at random; a full one sends it to another (each shard at most once), so it is
   * refused only once every shard has been found full in its window. Its refusal is recorded on
   * the key's one item, as for a key on one item.
   */
  async #admitOnShards(attempt: Attempt, layout: DayLayout, windows: Windows): Promise<Admission> {
    const { update, subject, key, limits, nowMs } = attempt;
    layout.countFor(limits, windows);
    let counts = { minuteCount: limits.perMinute, dayCount: limits.perDay };
    const tried = new Set<number>();
    for (
      let shard = layout.openShard(tried, this.#random);
      shard !== undefined;
      shard = layout.openShard(tried, this.#random)
    ) {
      tried.add(shard);
      const shares = sharesOf(limits, layout.shards, shard);
      const counted = await this.#countOn({ update, key: shardKey(subject, shard), limits: shares, nowMs }, windows);
      // A shard never holds a layout: only a key's own item says 'sharded'.
      if (counted.outcome === 'sharded') throw new Error(`rate counter shard ${shard} of ${subject} holds a layout`);
      counts = {
        minuteCount: estimatedCount(limits.perMinute, shares.perMinute, counted.minuteCount, layout.shards),
        dayCount: estimatedCount(limits.perDay, shares.perDay, counted.dayCount, layout.shards),
      };
      if (counted.outcome === 'admitted') return { outcome: 'admitted', ...counts };
      if (counted.outcome === 'suspended') return { outcome: 'suspended', until: counted.until, ...counts };
      layout.markFull(shard, counted.window, counted.windows);
    }
    const window = layout.fullWindow;
    // Copied onto as many shards as the next day may count on too: a suspension near midnight
    // covers the layout a raised plan gives that day.
    const suspend = () => this.#suspendShards(attempt, Math.max(layout.shards, shardCountFor(limits, this.#threshold)));
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const refusal = await uncountedWhenUnavailable(
        this.#recordShardedRefusal(attempt, layout, {
          windowEnd: windows[window].resetAt,
          allowed: refusalsAllowed(limits),
          suspend,
        }),
      );
      if (refusal !== 'conflict') return refusalAdmission(refusal, window, counts);
    }
    throw noDecision(key);
  }

  /**
   * One request on one counter item: counted in the current windows (opened if need be), or the
   * item is full (its state says which window), or suspended.
   */
  async #countOn(counting: Counting, current: Windows): Promise<Counted> {
    const { key, limits, nowMs } = counting;
    let windows = current;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const common = await this.#countInCurrentWindows(counting, windows);
      if (common.ok) return { outcome: 'admitted', minuteCount: common.minuteCount, dayCount: common.dayCount };
      const state = common.state;
      if (state.minute > windows.minute.id) {
        // Another instance whose clock is a little ahead already opened the next minute: join it
        // rather than reopen (and so reset) the one this clock still shows.
        windows = windowsAt(state.minute * 60_000);
        continue;
      }
      // A suspension first: a key's own item holds those of its days on one item, which its shards never had.
      if (state.suspendedUntil > nowMs)
        return { outcome: 'suspended', until: state.suspendedUntil, ...countsIn(state, windows) };
      if (state.shards > 0 && state.day === windows.day.id)
        return { outcome: 'sharded', shards: state.shards, windows };
      const counts = countsIn(state, windows);
      if (counts.minuteCount < limits.perMinute && counts.dayCount < limits.perDay) {
        // A new minute or day began (or this is the item's first request): open the windows.
        if (await this.#openWindows(counting, state, windows))
          return { outcome: 'admitted', minuteCount: counts.minuteCount + 1, dayCount: counts.dayCount + 1 };
        continue;
      }
      // The window that refused: the day once its quota is used up (when both are, the one that
      // frees up last), else the minute.
      return {
        outcome: 'full',
        window: counts.dayCount >= limits.perDay ? 'day' : 'minute',
        state,
        windows,
        ...counts,
      };
    }
    throw noDecision(key);
  }

  /**
   * Sets today's layout on the key's item, unless today's is set already: the first request of a
   * day decides it for the whole day, for every instance. Answers the layout and any suspension
   * the item holds (a key's shards carry only the suspensions of their own days).
   */
  async #claimDay(
    { update, key, nowMs }: Attempt,
    windows: Windows,
    shards: number,
  ): Promise<{ shards: number; suspendedUntil: number }> {
    const claimed = await update({
      Key: key,
      UpdateExpression:
        'SET #day = :day, #minute = :minute, minuteCount = :zero, dayCount = :zero, shards = :shards, expiresAt = :expiresAt',
      ConditionExpression: 'attribute_not_exists(#day) OR #day < :day',
      ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
      ExpressionAttributeValues: {
        ':day': integer(windows.day.id),
        ':minute': integer(windows.minute.id),
        ':zero': ZERO,
        ':shards': integer(shards),
        ':expiresAt': integer(expiresAt(windows, nowMs)),
      },
      ReturnValues: 'ALL_OLD',
    });
    if (claimed.ok) return { shards, suspendedUntil: numberIn(claimed.attributes, 'suspendedUntil') ?? 0 };
    // Today is set: on one item when it has no shards.
    return { shards: Math.max(1, claimed.state.shards), suspendedUntil: claimed.state.suspendedUntil };
  }

  /** The common case: both windows current, room in both, not suspended. */
  async #countInCurrentWindows(
    { update, key, limits, nowMs }: Counting,
    windows: Windows,
  ): Promise<{ ok: true; minuteCount: number; dayCount: number } | { ok: false; state: CounterState }> {
    const result = await update({
      Key: key,
      UpdateExpression: 'ADD minuteCount :one, dayCount :one SET expiresAt = :expiresAt',
      ConditionExpression:
        '#minute = :minute AND #day = :day AND minuteCount < :minuteLimit AND dayCount < :dayLimit AND ' +
        '(attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now) AND attribute_not_exists(shards)',
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
    return {
      ok: true,
      minuteCount: numberOf(result.attributes, 'minuteCount'),
      dayCount: numberOf(result.attributes, 'dayCount'),
    };
  }

  /**
   * Starts the current minute (and day, if that changed too) with this request as its first,
   * guarded by the values just read, so that of two requests racing to do it only one does.
   */
  async #openWindows({ update, key, nowMs }: Counting, state: CounterState, windows: Windows): Promise<boolean> {
    const sameDay = state.exists && state.day === windows.day.id;
    const result = await update({
      Key: key,
      UpdateExpression: sameDay
        ? 'SET #minute = :minute, minuteCount = :one, expiresAt = :expiresAt ADD dayCount :one'
        : // A new day on a key's item: on one item (a day on shards starts in #claimDay).
          'SET #minute = :minute, minuteCount = :one, #day = :day, dayCount = :one, expiresAt = :expiresAt REMOVE shards',
      ConditionExpression: state.exists
        ? '#minute = :seenMinute AND #day = :seenDay AND dayCount = :seenDayCount'
        : 'attribute_not_exists(pk)',
      ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
      ExpressionAttributeValues: {
        ':one': ONE,
        ':minute': integer(windows.minute.id),
        ...(sameDay ? {} : { ':day': integer(windows.day.id) }),
        ':expiresAt': integer(expiresAt(windows, nowMs)),
        ...(state.exists
          ? {
              ':seenMinute': integer(state.minute),
              ':seenDay': integer(state.day),
              ':seenDayCount': integer(state.dayCount),
            }
          : {}),
      },
    });
    return result.ok;
  }

  /**
   * Adds a refused request to the refusal streak of the window that refused it (the first refusal
   * in a window opens that window's streak), and suspends the subject when the streak passes the
   * refusals it `allowed` (suspension.ts). A streak belongs to one window: a client that waited as its Retry-After said
   * and is refused again is refused in another window, whose streak starts afresh.
   */
  async #recordRefusal(
    { update, key, arrivedAt }: Attempt,
    state: CounterState,
    { windowEnd, allowed, suspend }: Refusal,
  ): Promise<'refused' | Suspension> {
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
    if (numberOf(counted.attributes, 'refusals') <= allowed) return 'refused';
    return suspend();
  }

  /**
   * A sharded key's refusal, recorded on its one item as a key on one item records it: counted in
   * one write when its window's streak is open and a second old; else that write's failure gives
   * the item, from which the streak is opened (or the refusal not counted). A refusal this
   * container knows cannot count (its streak is under a second old) writes nothing.
   */
  async #recordShardedRefusal(attempt: Attempt, layout: DayLayout, refusal: Refusal): Promise<'refused' | Suspension> {
    const { update, key, nowMs, arrivedAt } = attempt;
    const { windowEnd, allowed, suspend } = refusal;
    if (layout.streakWindowEnd === windowEnd && arrivedAt < layout.streakStart + SUSPENSION_RULE.ignoredRetryAfterMs)
      return 'refused';
    const counted = await update({
      Key: key,
      UpdateExpression: 'ADD refusals :one',
      ConditionExpression:
        'refusalWindowEnd = :windowEnd AND refusalStart <= :countsFrom AND (attribute_not_exists(suspendedUntil) OR suspendedUntil <= :now)',
      ExpressionAttributeValues: {
        ':one': ONE,
        ':windowEnd': integer(windowEnd),
        ':countsFrom': integer(arrivedAt - SUSPENSION_RULE.ignoredRetryAfterMs),
        ':now': integer(nowMs),
      },
      ReturnValues: 'ALL_NEW',
    });
    if (counted.ok) {
      layout.streakWindowEnd = windowEnd;
      layout.streakStart = numberOf(counted.attributes, 'refusalStart');
      return numberOf(counted.attributes, 'refusals') <= allowed ? 'refused' : suspend();
    }
    const { state } = counted;
    if (state.suspendedUntil > nowMs) return { suspendedUntil: state.suspendedUntil };
    const recorded = await this.#recordRefusal(attempt, state, refusal);
    if (recorded === 'refused') {
      // The streak it found, or the one it opened.
      layout.streakWindowEnd = windowEnd;
      layout.streakStart = state.refusalWindowEnd === windowEnd ? state.refusalStart : arrivedAt;
    }
    return recorded;
  }

  /**
   * Suspends a key on one item. The suspension ends the streak: once it is over, the window's next
   * refusal opens a new one (it matters for the day, which outlasts a suspension), so that a client
   * that waited as the suspension's Retry-After said is not suspended again for the refusals it
   * was suspended for.
   */
  async #suspendOne(update: Update, key: Item, nowMs: number): Promise<Suspension> {
    const until = nowMs + SUSPENSION_RULE.suspensionMs;
    const suspended = await update({
      Key: key,
      UpdateExpression: SUSPEND_EXPRESSION,
      ConditionExpression: NOT_SUSPENDED,
      ExpressionAttributeValues: {
        ':until': integer(until),
        ':now': integer(nowMs),
        ':expiresAt': integer(ttlSeconds(until + RETENTION_MS)),
      },
    });
    if (suspended.ok) return { suspendedUntil: until };
    // The write's one condition failed, so another request suspended the subject first (its end is
    // after now): that end is the one every answer carries.
    return { suspendedUntil: suspended.state.suspendedUntil };
  }

  /**
   * Suspends a sharded key: its one item, as #suspendOne, and every shard with it in one
   * transaction, since each shard decides its requests alone. A shard never counted yet is made
   * with empty windows, so that counting opens them as on any item.
   */
  async #suspendShards({ key, subject, nowMs, deadline }: Attempt, shards: number): Promise<Suspension> {
    const until = nowMs + SUSPENSION_RULE.suspensionMs;
    const values = { ':until': integer(until), ':expiresAt': integer(ttlSeconds(until + RETENTION_MS)) };
    const onShards = Array.from({ length: shards }, (_, shard) => ({
      Update: {
        TableName: this.tableName,
        Key: shardKey(subject, shard),
        UpdateExpression:
          'SET suspendedUntil = :until, expiresAt = :expiresAt, #minute = if_not_exists(#minute, :zero), #day = if_not_exists(#day, :zero), ' +
          'minuteCount = if_not_exists(minuteCount, :zero), dayCount = if_not_exists(dayCount, :zero)',
        ExpressionAttributeNames: { '#minute': 'minute', '#day': 'day' },
        ExpressionAttributeValues: { ...values, ':zero': ZERO },
      },
    }));
    const onItem = {
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: SUSPEND_EXPRESSION,
        ConditionExpression: NOT_SUSPENDED,
        ExpressionAttributeValues: { ...values, ':now': integer(nowMs) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
    try {
      await this.client.send(new TransactWriteItemsCommand({ TransactItems: [onItem, ...onShards] }), {
        abortSignal: deadline?.signalForCall(),
      });
      return { suspendedUntil: until };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      // DynamoDB gives one reason per item, in order: the key's item first.
      const reasons = error.CancellationReasons ?? [];
      const onKeyItem = reasons[0];
      if (onKeyItem?.Code === 'ConditionalCheckFailed')
        return { suspendedUntil: toState(onKeyItem.Item).suspendedUntil };
      if (reasons.some((reason) => reason.Code === 'ThrottlingError'))
        throw new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS);
      // Another write on one of its items at that moment: decided again, once that write is done.
      await setTimeout(CONFLICT_WAIT_MS);
      return 'conflict';
    }
  }

  async #update(
    input: Omit<UpdateItemCommandInput, 'TableName'>,
    deadline: CallDeadline | undefined,
  ): Promise<UpdateResult> {
    // Completed in place (every caller passes a fresh object): a spread costs a microsecond here.
    const complete = input as UpdateItemCommandInput;
    complete.TableName = this.tableName;
    complete.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { Attributes = {} } = await this.client.send(new UpdateItemCommand(complete), {
          abortSignal: deadline?.signalForCall(),
        });
        return { ok: true, attributes: Attributes };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { ok: false, state: toState(error.Item) };
        if (!(error instanceof TransactionConflictException)) throw error;
        // A sharded key's suspension (one transaction) holds its items for a few milliseconds:
        // tried again after it, and after a few tries the datastore is taken as busy (503).
        if (attempt === CONFLICT_ATTEMPTS) throw new ServiceUnavailableError(error, DATASTORE_RETRY_AFTER_SECONDS);
        await setTimeout(CONFLICT_WAIT_MS);
      }
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
    shards: number('shards'),
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

/**
 * A refusal stands whatever befalls its bookkeeping: counting it toward a suspension, or the
 * suspension itself, is left undone when the datastore is throttled or out of reach (the next
 * refusal tries again), and the request is refused all the same, never answered 503. A key whose
 * clients flood it past its plan makes its own counter item busy; that must not turn their 429s
 * into 503s.
 */
async function uncountedWhenUnavailable(
  recording: Promise<'refused' | 'conflict' | { suspendedUntil: number }>,
): Promise<'refused' | 'conflict' | { suspendedUntil: number }> {
  try {
    return await recording;
  } catch (error) {
    if (error instanceof ServiceUnavailableError) return 'refused';
    throw error;
  }
}

/** What a recorded refusal tells the limiter. */
function refusalAdmission(
  refusal: 'refused' | { suspendedUntil: number },
  window: 'minute' | 'day',
  counts: { minuteCount: number; dayCount: number },
): Admission {
  const { minuteCount, dayCount } = counts;
  return refusal === 'refused'
    ? { outcome: 'refused', window, minuteCount, dayCount }
    : { outcome: 'suspended', until: refusal.suspendedUntil, minuteCount, dayCount };
}

/** Each conflict means another request changed the item first; this many in a row is a fault. */
const noDecision = (key: Item): Error =>
  new Error(
    `rate counter ${(key.pk as { S: string }).S}: no decision after ${MAX_ROUNDS} rounds of conflicting writes`,
  );
