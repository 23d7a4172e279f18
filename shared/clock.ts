/**
 * The time the service goes by. Rate-limit windows read it here so that tests can move time
 * across minute and day boundaries without sleeping.
 */
let current: () => number = Date.now;

export function now(): number {
  return current();
}

/** For tests: replace the clock; returns a function that restores the previous one. */
export function setClock(next: () => number): () => void {
  const previous = current;
  current = next;
  return () => {
    current = previous;
  };
}

// `Date#toISOString` costs more than the rest of a log line: the part up to the seconds is made once a second.
let secondStart = Number.NaN;
let secondPrefix = '';

/** `2026-11-22T10:15:30.042Z` for a time in ms since the epoch, as `Date#toISOString` writes it. */
export function isoTimestamp(ms: number): string {
  const millisecond = ms % 1000;
  if (ms - millisecond !== secondStart) {
    secondStart = ms - millisecond;
    secondPrefix = new Date(secondStart).toISOString().slice(0, 20);
  }
  return `${secondPrefix}${millisecond < 10 ? '00' : millisecond < 100 ? '0' : ''}${millisecond}Z`;
}
