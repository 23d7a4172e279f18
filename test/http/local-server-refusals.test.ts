import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_DEADLINE_MS, startLocalServer, type AnsweredRequest, type LocalServer } from '../../local/server';
import { expectErrorShape, type ApiResponse } from '../support/api';
import { testDatabase } from '../support/database';

/**
 * Issue 36, finding 6: what Node's HTTP server answers on its own (headers too large, too slow or
 * malformed) the local server answers in the Error shape, with `X-Request-Id` and `nosniff`; and
 * a request with more headers than it reads is refused, never served with some of them dropped.
 * Everything here is sent over raw sockets, as no HTTP client would send it.
 */
const db = testDatabase();
const answered: AnsweredRequest[] = [];
let server: LocalServer;
let quick: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ port: 0, onAnswered: (request) => answered.push(request) });
  // The same server with a short deadline for headers, so that trickled headers take a test no 10 s.
  quick = await startLocalServer({ port: 0, headersDeadlineMs: 300 });
});
afterAll(async () => {
  await server?.close();
  await quick?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long a test waits for an answer before it calls the server silent. */
const PATIENCE_MS = 5_000;

interface RawAnswer extends ApiResponse {
  /** What came back, as it came. */
  readonly raw: string;
  readonly elapsedMs: number;
}

/**
 * Writes `request` (its pieces one after the other, `pauseMs` apart) and resolves with the first
 * answer: once it is complete, or the connection closed, or after PATIENCE_MS (status 0: none).
 */
function exchange(target: LocalServer, request: string | readonly string[], pauseMs = 0): Promise<RawAnswer> {
  const pieces = typeof request === 'string' ? [request] : request;
  const started = performance.now();
  const socket = connect(target.port, '127.0.0.1');
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
      resolve(parse(received.toString('latin1'), performance.now() - started));
    };
    const patience = setTimeout(finish, PATIENCE_MS);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(text.slice(0, end + 2));
      const chunked = /\r\ntransfer-encoding: *chunked\r\n/i.test(text.slice(0, end + 2));
      if (length !== null ? received.length >= end + 4 + Number(length[1]) : chunked && text.endsWith('0\r\n\r\n')) finish();
    });
    socket.on('close', finish);
  });
}

function parse(raw: string, elapsedMs: number): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = (end < 0 ? raw : raw.slice(0, end)).split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rest = end < 0 ? '' : raw.slice(end + 4);
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

/** The Error shape exactly, with the headers every answer has. */
function expectShapedRefusal(answer: RawAnswer, status: number, message: RegExp, code = 'invalid_request'): void {
  expect(answer.raw.slice(0, 200), 'the first bytes of the answer').toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expectErrorShape(answer, status, code);
  expect(answer.body).toEqual({ code, message: expect.stringMatching(message), status });
  expect(answer.headers.get('x-request-id')).toMatch(UUID);
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  // Written on the raw connection, it says its length; through a response, it may come chunked.
  if (answer.headers.has('content-length')) expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.text));
}

/** A request's head: its request line, then its header lines, then the empty line. */
const head = (requestLine: string, headers: readonly string[]) => [requestLine, ...headers, '', ''].join('\r\n');

/** POST /v1/pets with the Pro demo key and a body, `extra` header lines between the first ones and the last. */
function createPet(name: string, extra: readonly string[], last: readonly string[] = []): string {
  const body = JSON.stringify({ name, categoryId: 1, status: 'available' });
  return (
    head('POST /v1/pets HTTP/1.1', [
      `Host: 127.0.0.1:${server.port}`,
      'Authorization: Bearer local-pro-key',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...extra,
      ...last,
    ]) + body
  );
}

/** Header lines as short as they come (2,000 of them are 10 KB, well within 16 KiB). */
const fillers = (count: number): string[] => Array.from({ length: count }, () => 'x:1');
const petsNamed = async (name: string) => (await db.storedPets()).filter((pet) => pet.name === name);

describe('headers larger than the local server reads', () => {
  it('are answered 431 in the Error shape with X-Request-Id and nosniff, not a bare 431', async () => {
    const answer = await exchange(server, head('GET /v1/pets HTTP/1.1', ['Host: 127.0.0.1', 'Authorization: Bearer local-pro-key', `X-Large: ${'a'.repeat(20 * 1024)}`]));
    expectShapedRefusal(answer, 431, /headers .*larger than the local server accepts \(16 KiB\)/);
    expect(answer.headers.get('connection')).toBe('close');
    // npm start's log shows it too, under the id the client got.
    await expect.poll(() => answered.find((line) => line.requestId === answer.headers.get('x-request-id'))).toMatchObject({ status: 431 });
  });

  it('reach the client even while it is still sending: 2 MB of headers, sent on after the answer, get the 431, not a reset', async () => {
    const answer = await exchange(server, [head('GET /v1/pets HTTP/1.1', ['Host: 127.0.0.1']).slice(0, -2), ...Array(64).fill(`X-Large: ${'a'.repeat(32 * 1024)}\r\n`)], 5);
    expectShapedRefusal(answer, 431, /headers .*larger than the local server accepts \(16 KiB\)/);
  });
});

describe('a bad request pipelined behind one still being answered', () => {
  it('closes the connection rather than give the first request the second one\'s 400', async () => {
    const valid = head('GET /v1/pets?limit=1 HTTP/1.1', ['Host: 127.0.0.1', 'Authorization: Bearer local-pro-key']);
    const answer = await exchange(server, `${valid}NOT AN HTTP REQUEST\r\n\r\n`);
    expect(answer.raw.startsWith('HTTP/1.1 400')).toBe(false);
  });
});

describe('more headers than the local server reads', () => {
  it('is refused with 431 in the Error shape (over 100 headers), and nothing is created', async () => {
    const answer = await exchange(server, createPet('Too many headers', fillers(97)));
    expectShapedRefusal(answer, 431, /more headers than the local server accepts \(100\)/);
    expect(answer.headers.get('location')).toBeNull();
    expect(await petsNamed('Too many headers')).toEqual([]);
    await expect.poll(() => answered.find((line) => line.requestId === answer.headers.get('x-request-id'))).toMatchObject({ status: 431, method: 'POST', path: '/v1/pets' });
  });

  it('is refused when Idempotency-Key is the 2,001st header, never served without it', async () => {
    const answer = await exchange(server, createPet('Idempotency key dropped', fillers(1996), ['Idempotency-Key: the-2001st-header']));
    expectShapedRefusal(answer, 431, /more headers than the local server accepts \(100\)/);
    expect(await petsNamed('Idempotency key dropped')).toEqual([]);
  });

  it('serves a request of exactly 100 headers with all of them: the last one, an Idempotency-Key, is honoured', async () => {
    const request = createPet('At the limit', fillers(95), ['Idempotency-Key: the-100th-header']);
    expect(request.split('\r\n\r\n')[0]?.split('\r\n')).toHaveLength(1 + 100);
    const first = await exchange(server, request);
    expect(first.status).toBe(201);
    const replay = await exchange(server, request);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await petsNamed('At the limit')).toHaveLength(1);
  });
});

describe('headers that arrive too slowly', () => {
  it('are answered 408 in the Error shape once their deadline (10 s; 300 ms here) has passed, not a bare 408 after a minute', async () => {
    // One header line every 100 ms, never the empty line that ends them.
    const trickle = ['POST /v1/pets HTTP/1.1\r\n', 'Host: 127.0.0.1\r\n', ...fillers(100).map((line) => `${line}\r\n`)];
    const answer = await exchange(quick, trickle, 100);
    expectShapedRefusal(answer, 408, /line and headers did not arrive within 300 ms/);
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(250);
    expect(answer.elapsedMs).toBeLessThan(PATIENCE_MS);
    // And the server npm start runs has the 10 s of the decisions.
    expect([server.server.headersTimeout, HEADERS_DEADLINE_MS]).toEqual([10_000, 10_000]);
  });
});

describe('a request Node cannot parse or will not take', () => {
  it.each([
    ['a malformed request line', 'NOT AN HTTP REQUEST\r\n\r\n'],
    ['a header line without a colon', head('GET /v1/pets HTTP/1.1', ['Host: 127.0.0.1', 'no colon here'])],
  ])('answers %s with 400 in the Error shape', async (_, request) => {
    const answer = await exchange(server, request);
    expectShapedRefusal(answer, 400, /not well-formed HTTP\/1\.1/);
    expect(answer.headers.get('connection')).toBe('close');
  });

  it('answers an HTTP/1.1 request without Host with 400 in the Error shape', async () => {
    const answer = await exchange(server, head('GET /v1/pets HTTP/1.1', ['Authorization: Bearer local-pro-key']));
    expectShapedRefusal(answer, 400, /Host header/);
  });

  it('answers an Expect it does not fulfil with 417 in the Error shape', async () => {
    const answer = await exchange(server, head('GET /v1/pets HTTP/1.1', ['Host: 127.0.0.1', 'Authorization: Bearer local-pro-key', 'Expect: something-else']));
    expectShapedRefusal(answer, 417, /Expect/);
  });

  it('answers CONNECT, which no route has, with the 404 of any method no route has, not a silent close', async () => {
    const answer = await exchange(server, head('CONNECT 127.0.0.1:443 HTTP/1.1', ['Host: 127.0.0.1:443']));
    expectShapedRefusal(answer, 404, /No operation answers this method and path/, 'not_found');
  });
});
