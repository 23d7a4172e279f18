import { connect } from 'node:net';
import type { ApiResponse } from './api';

/**
 * HTTP/1.1 over a raw socket, for requests no HTTP client would send (malformed lines, headers
 * trickled or repeated, a body held back): what is written is exactly what the server reads.
 */

/** How long an exchange waits for an answer before it calls the server silent. */
export const PATIENCE_MS = 5_000;

export interface RawAnswer extends ApiResponse {
  /** What came back, as it came. */
  readonly raw: string;
  readonly elapsedMs: number;
}

/**
 * Writes `request` (its pieces one after the other, `pauseMs` apart) to the server on `port` and
 * resolves with the first answer: once it is complete, or the connection closed, or after
 * PATIENCE_MS (status 0: none).
 */
export function exchange(port: number, request: string | readonly string[], pauseMs = 0): Promise<RawAnswer> {
  const pieces = typeof request === 'string' ? [request] : request;
  // An answer to HEAD has a head only, whatever length it announces.
  const headOnly = (pieces[0] ?? '').startsWith('HEAD ');
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  let next = 0;
  const writeNext = () => {
    if (next >= pieces.length || socket.destroyed) return;
    socket.write(pieces[next++] as string);
    if (next < pieces.length) timer = setTimeout(writeNext, pauseMs);
  };
  writeNext();
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(patience);
      socket.destroy();
      resolve(parseAnswer(received.toString('latin1'), performance.now() - started));
    };
    const patience = setTimeout(finish, PATIENCE_MS);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (isComplete(received.toString('latin1'), headOnly)) finish();
    });
    socket.on('close', finish);
  });
}

/** Whether `text` holds a whole final answer (interim 1xx answers before it skipped); `headOnly` for an answer to HEAD. */
function isComplete(text: string, headOnly: boolean): boolean {
  const [, final] = splitInterim(text);
  const end = final.indexOf('\r\n\r\n');
  if (end < 0) return false;
  if (headOnly) return true;
  const head = final.slice(0, end + 2);
  const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(head);
  const chunked = /\r\ntransfer-encoding: *chunked\r\n/i.test(head);
  return length !== null
    ? Buffer.byteLength(final, 'latin1') >= end + 4 + Number(length[1])
    : chunked && final.endsWith('0\r\n\r\n');
}

/** The interim (1xx) answers' heads as they came, and the rest. */
function splitInterim(text: string): [string, string] {
  let at = 0;
  while (/^HTTP\/1\.1 1\d\d /.test(text.slice(at))) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    at = end + 4;
  }
  return [text.slice(0, at), text.slice(at)];
}

/** The final answer in `raw` (any interim answers before it skipped); `raw` keeps them all. */
export function parseAnswer(raw: string, elapsedMs: number): RawAnswer {
  const [, final] = splitInterim(raw);
  const end = final.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = (end < 0 ? final : final.slice(0, end)).split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rest = end < 0 ? '' : final.slice(end + 4);
  const text = headers.get('transfer-encoding') === 'chunked' ? unchunk(rest) : rest;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0);
  return { raw, elapsedMs, status, headers, text, body };
}

function unchunk(chunked: string): string {
  let text = '';
  for (let at = 0; at < chunked.length; ) {
    const lineEnd = chunked.indexOf('\r\n', at);
    const size = parseInt(chunked.slice(at, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) break;
    text += chunked.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
  return text;
}

/** A request's head: its request line, then its header lines, then the empty line. */
export const head = (requestLine: string, headers: readonly string[]): string =>
  [requestLine, ...headers, '', ''].join('\r\n');

export interface ContinuedAnswer extends RawAnswer {
  /** Whether the server answered `100 Continue` (and so was sent the body). */
  readonly continued: boolean;
  /** Whether the server closed the connection within CLOSE_PATIENCE_MS of its answer. */
  readonly closedByServer: boolean;
}

/** How long after a complete answer `sendExpectingContinue` waits for the server to close the connection. */
export const CLOSE_PATIENCE_MS = 1_000;

/**
 * A request with `Expect: 100-continue` as a client sends it: its head, then its body only once the
 * server answers `100 Continue`. Resolves once the final answer is complete and the server closed
 * the connection, or CLOSE_PATIENCE_MS after the answer (or after PATIENCE_MS with no answer).
 */
export function sendExpectingContinue(port: number, requestHead: string, body: string): Promise<ContinuedAnswer> {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(requestHead);
  return new Promise((resolve) => {
    let received = '';
    let continued = false;
    let closedByServer = false;
    let lingering: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(patience);
      clearTimeout(lingering);
      resolve({ ...parseAnswer(received, performance.now() - started), continued, closedByServer });
      socket.destroy();
    };
    const patience = setTimeout(finish, PATIENCE_MS);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!continued && /^HTTP\/1\.1 100 /.test(received) && received.includes('\r\n\r\n')) {
        continued = true;
        socket.write(body);
      }
      if (lingering === undefined && isComplete(received, false)) lingering = setTimeout(finish, CLOSE_PATIENCE_MS);
    });
    socket.on('end', () => (closedByServer = true));
    socket.on('close', () => {
      closedByServer = true;
      finish();
    });
  });
}
