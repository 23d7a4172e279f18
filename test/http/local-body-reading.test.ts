import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BODY_DEADLINE_MS, startLocalServer, type LocalServer } from '../../local/server';

/**
 * Issue 23, finding 7 (local only: in AWS the gateway reads the body before anything): the local
 * server answers a missing or invalid key from the headers, before it reads a body; and a body
 * that does not arrive within its deadline gets its connection closed, with one line on stderr.
 */
let server: LocalServer;
let quick: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ port: 0 });
  // The same server with a short deadline for a body, so that a stalled body takes a test no 10 s.
  quick = await startLocalServer({ port: 0, bodyDeadlineMs: 300 });
});
afterAll(async () => {
  await server.close();
  await quick.close();
});

/** Sends the request line, headers and the first bytes of a body announced as far larger; resolves with what comes back. */
function partialPost(
  target: LocalServer,
  authorization: string | undefined,
  announced: number,
  sent: number,
): { socket: Socket; answer: Promise<string>; closed: Promise<void> } {
  const { port } = target;
  const socket = connect(port, '127.0.0.1');
  const head = [
    'POST /v1/pets HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    `Content-Length: ${announced}`,
    ...(authorization ? [`Authorization: ${authorization}`] : []),
    '',
    '',
  ].join('\r\n');
  socket.write(head);
  socket.write(Buffer.alloc(sent, 0x20));
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (/\r\n\r\n/.test(received)) resolve(received);
    });
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  return { socket, answer, closed };
}

describe('the local server and a body it has not read', () => {
  it.each([
    ['no Authorization header', undefined],
    ['an unknown key', 'Bearer not-a-known-key-at-all'],
    ['a malformed one', 'Basic abc'],
  ])(
    'answers %s with 401 before reading a body (16 KiB announced, the most a route accepts; 1 KiB sent)',
    async (_, authorization) => {
      const { socket, answer } = partialPost(server, authorization, 16 * 1024, 1024);
      try {
        const response = await answer;
        expect(response).toMatch(/^HTTP\/1\.1 401 /);
      } finally {
        socket.destroy();
      }
    },
  );

  it.each([
    ['no Authorization header', undefined],
    ['a valid key', 'Bearer local-pro-key'],
  ])(
    "answers a body announced larger than 16 KiB with the web ACL's 413 at once, before the route or the key (%s), as in AWS",
    async (_, authorization) => {
      const { socket, answer } = partialPost(server, authorization, 16 * 1024 + 1, 1024);
      try {
        const response = await answer;
        expect(response).toMatch(/^HTTP\/1\.1 413 /);
        expect(response).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      } finally {
        socket.destroy();
      }
    },
  );

  it('after an early 401, closes the connection once the unread body has not arrived by its deadline', async () => {
    const { answer, closed } = partialPost(quick, undefined, 16 * 1024, 1024);
    expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
    await closed; // the client never finishes: the server closes it (300 ms here), or this test times out
  });

  it('closes the connection of a body that stalls past its deadline, and writes one line on stderr, not a stack trace', async () => {
    expect(BODY_DEADLINE_MS).toBe(10_000);
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const { closed } = partialPost(quick, 'Bearer local-pro-key', 1_000, 10);
      await closed;
      await vi.waitFor(() => expect(lines.join('')).toContain('body'));
      const text = lines.join('');
      expect(text.trim().split('\n')).toHaveLength(1);
      expect(text).toMatch(/^local server: .*body.*300 ms.*closed/);
      expect(text).not.toMatch(/\n\s+at /);
    } finally {
      spy.mockRestore();
    }
  });
});
