import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCurlSession, sessionInReadme, SESSION_TIME } from '../../local/curl-session';
import { testApiOnClock } from '../support/api';

/**
 * The README's curl session is what the API answers: run again against this file's fresh table
 * (ids from 1, the demo keys, the clock of the session), it gives the README's text, request ids
 * and the cursor's signature (another secret here) aside.
 */
const clock = testApiOnClock(SESSION_TIME);
const readme = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');

const normalized = (session: string): string =>
  session
    .replace(/^X-Request-Id: [0-9a-f-]{36}$/gm, 'X-Request-Id: <request id>')
    .replace(/cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, 'cursor=<cursor>');

describe("the README's curl session", () => {
  it('is what a fresh store answers, word for word; omitted headers are marked', async () => {
    const session = await runCurlSession(clock.api().baseUrl);
    expect(normalized(sessionInReadme(readme))).toBe(normalized(session));
    // Every answer leaves out something (Date at least), and says so.
    expect(session.split('\nHTTP/1.1 ').length - 1).toBe(session.split('\n…\n').length - 1);
  });
});
