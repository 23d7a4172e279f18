/**
 * The two fixed windows requests are counted in: the calendar minute and the UTC calendar day.
 * Ids increase with time; `resetAt` is when the window ends (ms since the epoch).
 */
export interface Window {
  readonly id: number;
  readonly resetAt: number;
}

export interface Windows {
  readonly minute: Window;
  readonly day: Window;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function windowsAt(nowMs: number): Windows {
  const minute = Math.floor(nowMs / MINUTE_MS);
  const day = Math.floor(nowMs / DAY_MS);
  return {
    minute: { id: minute, resetAt: (minute + 1) * MINUTE_MS },
    day: { id: day, resetAt: (day + 1) * DAY_MS },
  };
}

// Typed by annotation, not `as const`: Stryker mutates nothing inside a type assertion (docs/testing.md).
export const WINDOW_SECONDS: Readonly<Record<'minute' | 'day', number>> = {
  minute: MINUTE_MS / 1000,
  day: DAY_MS / 1000,
};
