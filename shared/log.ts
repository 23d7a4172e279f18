/**
 * Structured logging: one JSON object per line on stdout, which CloudWatch Logs stores as is.
 * Nothing secret is ever passed here: callers log key ids, never keys.
 */
import { isoTimestamp } from './clock';

export type LogEntry = Record<string, unknown> & { level: 'info' | 'warn' | 'error'; msg: string };
export type LogSink = (line: string) => void;

const silent = process.env.LOG_LEVEL === 'silent';
let sink: LogSink = (line) => {
  if (!silent) process.stdout.write(`${line}\n`);
};

export function writeLog(entry: LogEntry): void {
  sink(`{"time":"${isoTimestamp(Date.now())}",${JSON.stringify(entry).slice(1)}`);
}

/** Lets the tests read what would be logged. Returns the sink it replaced. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}
