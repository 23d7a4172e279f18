import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { testApiOnClock } from '../support/api';
import { testDatabase } from '../support/database';
import { TSX_LOADER, PROCESS_TEST_TIMEOUT_MS } from '../support/npm-start';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS });

/** `npm run keys` (node --import tsx local/keys-cli.ts) against this file's table, and the keys it makes, used over HTTP. */
const root = resolve(__dirname, '../..');
const db = testDatabase();
const { api, setTime, time } = testApiOnClock(Date.UTC(2026, 10, 22, 9, 0, 0));

function keys(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...TSX_LOADER, 'local/keys-cli.ts', ...args], {
      cwd: root,
      env: { ...process.env, DYNAMODB_ENDPOINT: db.endpoint, TABLE_NAME: db.tableName },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm run keys', () => {
  it("creates a key for a plan, prints it once, and the key works at once with that plan's limits", async () => {
    const created = await keys('create', '--plan', 'pro');
    expect(created.code).toBe(0);
    const apiKey = created.stdout.trim();
    expect(apiKey).toMatch(/^pet_[A-Za-z0-9_-]{32}$/);
    expect(created.stderr).toMatch(/Created a pro key \(key id [0-9a-f]{16}\)/);
    const response = await api().request('GET', '/pets', { key: apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');

    const listed = await keys('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^KEY ID\s+PLAN\s+PER MINUTE\s+PER DAY\s+CREATED\s+DEMO KEY$/m);
    expect(listed.stdout).toMatch(/ pro +300 +10000 /);
    expect(listed.stdout).not.toContain(apiKey);
  });

  it("moves a key to another plan and revokes it; a running server follows within 30 seconds (the authorizer's cache)", async () => {
    const apiKey = (await keys('create', '--plan', 'free')).stdout.trim();
    expect((await api().request('GET', '/pets', { key: apiKey })).headers.get('x-ratelimit-limit')).toBe('60');

    const moved = await keys(
      'set-plan',
      apiKey,
      '--plan',
      'enterprise',
      '--per-minute',
      '7000',
      '--per-day',
      '2000000',
    );
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('enterprise plan (7000/min, 2000000/day)');
    setTime(time() + 30_001);
    expect((await api().request('GET', '/pets', { key: apiKey })).headers.get('x-ratelimit-limit')).toBe('7000');

    const revoked = await keys('revoke', apiKey);
    expect(revoked.code).toBe(0);
    setTime(time() + 30_001);
    expect((await api().request('GET', '/pets', { key: apiKey })).status).toBe(401);
  });

  it('revokes by key id, and says when there is no such key', async () => {
    const created = await keys('create', '--plan', 'business');
    const keyId = /key id ([0-9a-f]{16})/.exec(created.stderr)?.[1] as string;
    expect((await keys('revoke', keyId)).code).toBe(0);
    const again = await keys('revoke', keyId);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('No such key.\n');
  });

  it.each([
    [['create'], '--plan must be one of free, pro, business, enterprise'],
    [['create', '--plan', 'gold'], '--plan must be one of'],
    [
      ['create', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'],
      '--per-minute must be a positive whole number',
    ],
    [['explode'], 'unknown command "explode"'],
    [['create', '--plan', 'free', '--colour', 'red'], "Unknown option '--colour'"],
  ])('refuses %j with a usage message and exit code 2', async (args, message) => {
    const result = await keys(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: npm run keys');
  });

  it('needs limits for an enterprise key, and names them (a usage error: exit code 2)', async () => {
    for (const args of [
      ['create', '--plan', 'enterprise'],
      ['create', '--plan', 'enterprise', '--per-minute', '100'],
    ]) {
      const result = await keys(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('an enterprise key needs its own limits: give --per-minute N and --per-day N');
    }
    const planned = await keys('create', '--plan', 'free', '--per-minute', '100', '--per-day', '1000');
    expect(planned.code).toBe(2);
    expect(planned.stderr).toContain(
      "--per-minute and --per-day are for enterprise keys; a free key has the plan's limits",
    );
  });

  it('says "an enterprise key" when it creates one', async () => {
    const created = await keys('create', '--plan', 'enterprise', '--per-minute', '100', '--per-day', '1000');
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/^Created an enterprise key \(key id [0-9a-f]{16}\)/);
  });

  it('one exit code for every usage error (2, usage on stderr); --help is not an error', async () => {
    const none = await keys();
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage: npm run keys');
    const help = await keys('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run keys');
    expect((await keys('revoke')).code).toBe(2);
  });

  it('--json: one JSON value on stdout for scripts, the new key in it; list marks the demo keys and never shows another key', async () => {
    const created = await keys('create', '--plan', 'pro', '--json');
    expect(created.code).toBe(0);
    const made = JSON.parse(created.stdout);
    expect(made).toEqual({
      apiKey: expect.stringMatching(/^pet_/),
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10_000 },
      createdAt: expect.any(String),
      demoKey: null,
    });
    expect((await api().request('GET', '/pets', { key: made.apiKey })).status).toBe(200);

    const listed = JSON.parse((await keys('list', '--json')).stdout) as { keyId: string; demoKey: string | null }[];
    expect(
      listed
        .map((key) => key.demoKey)
        .filter((demo) => demo !== null)
        .sort(),
    ).toEqual(['local-business-key', 'local-enterprise-key', 'local-free-key', 'local-pro-key']);
    expect(listed.find((key) => key.keyId === made.keyId)).toMatchObject({ demoKey: null });
    expect(JSON.stringify(listed)).not.toContain(made.apiKey);

    const table = (await keys('list')).stdout;
    expect(table).toMatch(/^KEY ID\s+PLAN\s+PER MINUTE\s+PER DAY\s+CREATED\s+DEMO KEY$/m);
    expect(table).toMatch(/ free +60 +1000 +\S+ +local-free-key$/m);

    const moved = JSON.parse((await keys('set-plan', made.keyId, '--plan', 'business', '--json')).stdout);
    expect(moved).toMatchObject({ keyId: made.keyId, plan: 'business' });
    expect(JSON.parse((await keys('revoke', made.keyId, '--json')).stdout)).toEqual({ revoked: true });
  });
});
