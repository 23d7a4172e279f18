/**
 * Structured logging: one JSON object per line on stdout, which CloudWatch Logs stores as is.
 * Nothing secret is ever passed here: callers log key ids, never keys.
 */
export type LogEntry = Record<string, unknown> & { level: 'info' | 'warn' | 'error'; msg: string };
export type LogSink = (line: string) => void;

const silent = process.env.LOG_LEVEL === 'silent';
let sink: LogSink = (line) => {
  if (!silent) process.stdout.write(`${line}\n`);
};

export function writeLog(entry: LogEntry): void {
  sink(`{"time":"${isoTimestamp(Date.now())}",${JSON.stringify(entry).slice(1)}`);
}

// `Date#toISOString` costs a third of the whole line: the part up to the seconds is made once a second.
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

/** Lets the tests read what would be logged. Returns the sink it replaced. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}
