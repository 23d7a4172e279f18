import type { RateLimits } from './plans';
import type { Windows } from './windows';

/** Subjects remembered per container; the oldest go first past this many. */
export const MAX_REMEMBERED_LAYOUTS = 10_000;

/**
 * What one container knows of a key's counters today, all of it learned from DynamoDB's answers
 * and true until its window ends or the key's limits change: the day's layout (how many shards; it
 * changes only when a day starts), the shards found full in the current minute or day under these
 * limits (a count only grows within its window), and the refusal streak's start. With it a request
 * of a sharded key picks a shard not known to be full, and a refusal that cannot count (its streak
 * is under a second old) writes nothing.
 */
export class DayLayout {
  readonly #minuteFull = new Set<number>();
  readonly #dayFull = new Set<number>();
  #minute: number;
  #limits: RateLimits | undefined;
  /** The refusal streak this container knows of: the end of its window, and its start (0: none). */
  streakWindowEnd = 0;
  streakStart = 0;

  constructor(
    readonly day: number,
    readonly shards: number,
    minute: number,
  ) {
    this.#minute = minute;
  }

  /**
   * Before a request counts: a shard full under other limits may not be under these (a plan
   * raised today), and one full in an earlier minute has room in this one.
   */
  countFor(limits: RateLimits, windows: Windows): void {
    if (this.#limits?.perMinute !== limits.perMinute || this.#limits.perDay !== limits.perDay) {
      this.#limits = limits;
      this.#minuteFull.clear();
      this.#dayFull.clear();
    }
    if (windows.minute.id > this.#minute) {
      this.#minute = windows.minute.id;
      this.#minuteFull.clear();
    }
  }

  /** A shard neither tried by this request nor known to be full, at random (undefined when none is left). */
  openShard(tried: ReadonlySet<number>, random: () => number): number | undefined {
    const open: number[] = [];
    for (let shard = 0; shard < this.shards; shard += 1)
      if (!tried.has(shard) && !this.#minuteFull.has(shard) && !this.#dayFull.has(shard)) open.push(shard);
    return open[Math.floor(random() * open.length)];
  }

  /** A shard found full in `windows` (those it was counted in): remembered while they are this container's current ones. */
  markFull(shard: number, window: 'minute' | 'day', windows: Windows): void {
    if (window === 'day') {
      if (windows.day.id === this.day) this.#dayFull.add(shard);
    } else if (windows.minute.id === this.#minute) this.#minuteFull.add(shard);
  }

  /** The window a refusal of every shard is in: the day once every shard's day share is used, else the minute. */
  get fullWindow(): 'minute' | 'day' {
    return this.#dayFull.size === this.shards ? 'day' : 'minute';
  }
}

export class LayoutMemory {
  readonly #layouts = new Map<string, DayLayout>();

  /** Today's layout of `subject`, if this container has learned it. */
  get(subject: string, windows: Windows): DayLayout | undefined {
    const layout = this.#layouts.get(subject);
    return layout?.day === windows.day.id ? layout : undefined;
  }

  remember(subject: string, windows: Windows, shards: number): DayLayout {
    const known = this.get(subject, windows);
    if (known?.shards === shards) return known;
    this.#layouts.delete(subject);
    if (this.#layouts.size >= MAX_REMEMBERED_LAYOUTS) this.#layouts.delete(this.#layouts.keys().next().value as string);
    const layout = new DayLayout(windows.day.id, shards, windows.minute.id);
    this.#layouts.set(subject, layout);
    return layout;
  }
}
