/**
 * Structured logging: one JSON object per line on stdout, which CloudWatch Logs stores as is.
 * Nothing secret is ever passed here: callers log key ids, never keys.
 *
 * LOG_LEVEL (debug, info, warn, error, silent; default info) drops the lines below it. The request
 * line is at info; its metrics (embedded metric format) are kept below that threshold too, as a
 * line with the metrics alone: lowering the noise must not blind the dashboard. Only `silent`
 * (the tests) writes nothing at all.
 */
import { isoTimestamp } from './clock';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogEntry = Record<string, unknown> & { level: Exclude<LogLevel, 'silent'>; msg: string };
export type LogSink = (line: string) => void;

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/** The threshold of LOG_LEVEL; an unknown value counts as info (and says so once). */
export function readLogLevel(value: string | undefined): LogLevel {
  if (value === undefined || value === '') return 'info';
  const level = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  process.stderr.write(`LOG_LEVEL "${value}" is not one of ${LOG_LEVELS.join(', ')}; logging at info.\n`);
  return 'info';
}

const configured = readLogLevel(process.env.LOG_LEVEL);
// `silent` is the default sink's (stdout) business: a sink a test sets still sees every line.
let threshold = configured === 'silent' ? RANK.debug : RANK[configured];
let sink: LogSink = configured === 'silent' ? () => {} : (line) => process.stdout.write(`${line}\n`);

/**
 * Writes the entry if its level passes LOG_LEVEL. `metrics` is JSON text appended to the object;
 * `dimensions` names the entry's fields it refers to, which a metrics-only line keeps.
 */
export function writeLog(entry: LogEntry, metrics?: string, dimensions: readonly string[] = []): void {
  if (RANK[entry.level] < threshold) {
    // Metrics are not logging: below the threshold the line keeps them, and only them.
    if (metrics !== undefined) sink(`{${fieldsOf(entry, dimensions)}${metrics}}`);
    return;
  }
  const json = JSON.stringify(entry);
  sink(
    `{"time":"${isoTimestamp(Date.now())}",${metrics === undefined ? json.slice(1) : `${json.slice(1, -1)},${metrics}}`}`,
  );
}

/** The named fields of the entry that it has, as JSON members each followed by a comma. */
function fieldsOf(entry: LogEntry, names: readonly string[]): string {
  let members = '';
  for (const name of names)
    if (entry[name] !== undefined) members += `${JSON.stringify(name)}:${JSON.stringify(entry[name])},`;
  return members;
}

/**
 * An error as a log line holds it: its name, message and stack, and its cause's name and message
 * (an SDK's abort or network error is usually the cause that says what happened). A value thrown
 * that is no Error is logged as text.
 */
export function loggedError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const cause = error.cause instanceof Error ? { name: error.cause.name, message: error.cause.message } : undefined;
  return { name: error.name, message: error.message, stack: error.stack, ...(cause ? { cause } : {}) };
}

/** Lets the tests read what would be logged. Returns the sink it replaced. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

/** For tests: log at this level from now on (debug to error); returns a function that restores the previous one. */
export function setLogLevel(level: Exclude<LogLevel, 'silent'>): () => void {
  const previous = threshold;
  threshold = RANK[level];
  return () => {
    threshold = previous;
  };
}
