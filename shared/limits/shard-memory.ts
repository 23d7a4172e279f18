import type { Windows } from './windows';

/** Subjects remembered per container; the oldest go first past this many. */
export const MAX_REMEMBERED_LAYOUTS = 10_000;

/**
 * What one container knows of a key's counters today, all of it learned from DynamoDB's answers
 * and true until its window ends: the day's layout (how many shards; it changes only when a day
 * starts), the shards found full in the current minute or day (a count only grows within its
 * window), and the refusal streak's start. With it a request of a sharded key picks a shard not
 * known to be full, and a refusal that cannot count (its streak is under a second old) writes
 * nothing.
 */
export class DayLayout {
  readonly #minuteFull = new Set<number>();
  readonly #dayFull = new Set<number>();
  #minute: number;
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

  /** A shard not known to be full in these windows, at random (undefined when every one is). */
  openShard(windows: Windows, random: () => number): number | undefined {
    if (windows.minute.id !== this.#minute) {
      this.#minute = windows.minute.id;
      this.#minuteFull.clear();
    }
    const open: number[] = [];
    for (let shard = 0; shard < this.shards; shard += 1) if (!this.#minuteFull.has(shard) && !this.#dayFull.has(shard)) open.push(shard);
    return open[Math.floor(random() * open.length)];
  }

  markFull(shard: number, window: 'minute' | 'day'): void {
    (window === 'day' ? this.#dayFull : this.#minuteFull).add(shard);
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
