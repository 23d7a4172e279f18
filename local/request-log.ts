/**
 * `npm start`'s readable log: in a terminal, one short line per request instead of the JSON line
 * (with its embedded metrics) that the handlers write for CloudWatch. Local only: nothing here is
 * imported by a function, so the deployed bundles never contain it.
 *
 * LOG_FORMAT picks the format (`pretty` or `json`); without it, pretty when stdout is a terminal,
 * JSON otherwise. Colours only in a terminal, and not when NO_COLOR is set (no-color.org).
 */
import { LOG_LEVELS, type LogLevel, type LogSink } from '../shared/log';
import type { AnsweredRequest } from './server';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** LOG_FORMAT if it is one; otherwise pretty in a terminal, else JSON. An unknown value says so on stderr. */
export function chooseLogFormat(value: string | undefined, stdoutIsTerminal: boolean): LogFormat {
  const fallback: LogFormat = stdoutIsTerminal ? 'pretty' : 'json';
  if (value === undefined || value === '') return fallback;
  const format = value.toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(format)) return format as LogFormat;
  process.stderr.write(`LOG_FORMAT "${value}" is not one of ${LOG_FORMATS.join(', ')}; logging as ${fallback}.\n`);
  return fallback;
}

/** Colours in a terminal, unless NO_COLOR is set to anything but the empty string. */
export function useColour(noColor: string | undefined, stdoutIsTerminal: boolean): boolean {
  return stdoutIsTerminal && (noColor === undefined || noColor === '');
}

const RESET = '\u001b[0m';
/** 2xx green, 3xx cyan, 4xx yellow, 5xx red. */
const STATUS_COLOURS: Record<number, string> = { 2: '\u001b[32m', 3: '\u001b[36m', 4: '\u001b[33m', 5: '\u001b[31m' };
const LEVEL_COLOURS: Record<string, string> = { warn: '\u001b[33m', error: '\u001b[31m' };

function paint(text: string, colour: string | undefined, on: boolean): string {
  return on && colour !== undefined ? `${colour}${text}${RESET}` : text;
}

/** `14:03:07.042`: the local wall-clock time, to the millisecond. */
export function clockTime(ms: number): string {
  const at = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

/** Control characters (an escape sequence in a path, say) are shown, never sent to the terminal. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * One request as one line: time, status, method, path, duration, operation (`-` when no function
 * served it), plan (`-` without one) and request id, e.g.
 * `14:03:07.042 201 POST   /v1/pets               12.3ms createPet pro        0b6f…`.
 */
export function formatRequestLine(request: AnsweredRequest, colour: boolean): string {
  const status = paint(String(request.status), STATUS_COLOURS[Math.floor(request.status / 100)], colour);
  return [
    clockTime(request.time),
    status,
    printable(request.method).padEnd(6),
    printable(request.path).padEnd(20),
    `${request.durationMs.toFixed(1)}ms`.padStart(8),
    (request.operation ?? '-').padEnd(9),
    (request.plan ?? '-').padEnd(10),
    request.requestId,
  ].join(' ');
}

/** LOG_LEVEL as shared/log.ts reads it (which already says so when it is unknown: info). */
export function logLevelOf(value: string | undefined): LogLevel {
  const level = (value ?? '').toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : 'info';
}

export interface PrettyLog {
  /** For setLogSink: the handlers' request lines are left to `onAnswered`; other lines are shown readably. */
  readonly sink: LogSink;
  /** For the local server: the request's line, with the error of a 5xx under it. */
  readonly onAnswered: (request: AnsweredRequest) => void;
}

/** A 5xx's error waits here for its request's line; bounded, should that line never come. */
const MAX_PENDING = 100;

/**
 * The pretty log, writing to `write` (stdout, in npm start). A request line's level is that of the
 * handler's JSON line (error for a 5xx, else info), and LOG_LEVEL drops it alike; `silent`, all.
 */
export function prettyLog(options: { write: (text: string) => void; colour: boolean; level: LogLevel }): PrettyLog {
  const { write, colour } = options;
  const threshold = LOG_LEVELS.indexOf(options.level);
  const passes = (level: string) => LOG_LEVELS.indexOf(level as LogLevel) >= threshold && options.level !== 'silent';
  const pending = new Map<string, string>();

  const sink: LogSink = (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      if (passes('info')) write(`${line}\n`);
      return;
    }
    // A metrics-only line (the request line below LOG_LEVEL): for CloudWatch, nothing to read here.
    if (typeof entry.msg !== 'string') return;
    if (typeof entry.level !== 'string' || !passes(entry.level)) return;
    if (entry.msg === 'request') {
      // The server's line replaces it; what only it knows (a 5xx's error) goes under that line.
      const details = errorDetails(entry);
      if (details !== '' && typeof entry.requestId === 'string') {
        if (pending.size >= MAX_PENDING) {
          const [oldest, text] = pending.entries().next().value as [string, string];
          pending.delete(oldest);
          write(`request ${oldest}:\n${text}`);
        }
        pending.set(entry.requestId, details);
      }
      return;
    }
    write(formatOtherLine(entry, colour));
  };

  const onAnswered = (request: AnsweredRequest): void => {
    const details = pending.get(request.requestId) ?? '';
    pending.delete(request.requestId);
    if (!passes(request.status >= 500 ? 'error' : 'info')) return;
    write(`${formatRequestLine(request, colour)}\n${details}`);
  };

  return { sink, onAnswered };
}

/** Any other line: time, level, message, its other fields as name=value, and its error indented under it. */
export function formatOtherLine(entry: Record<string, unknown>, colour: boolean): string {
  const level = String(entry.level);
  const time =
    typeof entry.time === 'string' && !Number.isNaN(Date.parse(entry.time))
      ? `${clockTime(Date.parse(entry.time))} `
      : '';
  let text = `${time}${paint(level.toUpperCase().padEnd(5), LEVEL_COLOURS[level], colour)} ${printable(String(entry.msg))}`;
  for (const [name, value] of Object.entries(entry)) {
    if (name === 'time' || name === 'level' || name === 'msg' || name === 'error') continue;
    text += ` ${name}=${printable(typeof value === 'string' ? value : JSON.stringify(value))}`;
  }
  return `${text}\n${errorDetails(entry)}`;
}

/** The entry's error as indented lines (its stack, else its name and message; its cause), or ''. */
function errorDetails(entry: Record<string, unknown>): string {
  const error = entry.error;
  if (error === null || typeof error !== 'object') return '';
  const { name, message, stack, cause, value } = error as Record<string, unknown>;
  const lines: string[] = [];
  if (typeof stack === 'string') lines.push(...stack.split('\n'));
  else if (message !== undefined) lines.push(`${String(name ?? 'Error')}: ${String(message)}`);
  else if (value !== undefined) lines.push(String(value));
  if (cause !== null && typeof cause === 'object') {
    const { name: causeName, message: causeMessage } = cause as Record<string, unknown>;
    lines.push(`cause: ${String(causeName ?? 'Error')}: ${String(causeMessage)}`);
  }
  return lines.map((line) => `  ${printable(line)}\n`).join('');
}
