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
