import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, lockDataDirectory, lockFile } from '../../local/data-dir-lock';

/**
 * The lock that makes one npm start per data directory (local/data-dir-lock.ts), on its own: which
 * lock is stale and taken over after a crash, which one still refuses. Two real npm starts on one
 * directory: test/http/local-start.test.ts.
 */
const hasProc = existsSync('/proc/self/stat');
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The state and start time (fields 3 and 22; the name, field 2, may hold spaces and parentheses) of /proc/<pid>/stat. */
function procStat(pid: number): { state: string; startTime: string } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, startTime: fields[19]! };
}

/** The lock file's content in each format: the pid alone (older checkouts), or with the start time. */
const oldFormat = (pid: number): string => `${pid}\n`;
const newFormat = (pid: number): string => `${pid} ${procStat(pid).startTime}\n`;

type Format = readonly [name: string, content: (pid: number) => string];
const OLD: Format = ['old', oldFormat];
const NEW: Format = ['new', newFormat];
/** The formats this platform can write: the start time needs /proc. */
const FORMATS: Format[] = hasProc ? [OLD, NEW] : [OLD];

const ownerOf = (dir: string): number => Number(readFileSync(lockFile(dir), 'utf8').split(/\s/)[0]);

const exited = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once('exit', done));

/** A `sleep 30`, killed by its pid after the test. */
async function sleeper(): Promise<ChildProcess & { pid: number }> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise((done, fail) => child.once('spawn', done).once('error', fail));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited(child);
  });
  return child as ChildProcess & { pid: number };
}

/**
 * A zombie: a process that has exited and that its parent has not reaped. The parent is a node
 * whose event loop, where node reaps its children, is blocked reading its stdin; ending that stdin
 * (or this process dying) lets it reap the zombie and exit, so no zombie outlives the test, even
 * where pid 1 reaps nothing (a container without an init). `sleep 30` as the parent would leave it
 * to pid 1.
 */
async function zombie(): Promise<number> {
  const parent = spawn(
    process.execPath,
    [
      '-e',
      `
    console.log(require('node:child_process').spawn('true').pid);
    require('node:fs').readSync(0, Buffer.alloc(1));
  `,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  cleanups.push(async () => {
    parent.stdin!.end();
    const timer = setTimeout(() => parent.kill('SIGKILL'), 5_000); // by its pid, should it not end
    await exited(parent);
    clearTimeout(timer);
  });
  const pid = Number(await new Promise<string>((done) => parent.stdout!.once('data', (data) => done(String(data)))));
  for (let waited = 0; procStat(pid).state !== 'Z'; waited += 10) {
    if (waited > 5_000) throw new Error(`process ${pid} did not become a zombie: ${procStat(pid).state}`);
    await new Promise((done) => setTimeout(done, 10));
  }
  return pid;
}

describe('a stale lock is taken over', () => {
  it.runIf(hasProc).each([OLD, NEW])('a zombie (exited, not reaped) in the %s format', async (_, format) => {
    const pid = await zombie();
    const dir = dataDir();
    writeFileSync(lockFile(dir), format(pid));
    expect(procStat(pid).state).toBe('Z');

    const lock = await lockDataDirectory(dir);
    expect(ownerOf(dir)).toBe(process.pid);
    await lock.release();
  });

  it.runIf(hasProc)('a live process that is not the owner: the pid was reused, its start time is another', async () => {
    const other = await sleeper();
    const dir = dataDir();
    writeFileSync(lockFile(dir), `${other.pid} ${BigInt(procStat(other.pid).startTime) - 1n}\n`);

    const lock = await lockDataDirectory(dir);
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(newFormat(process.pid));
    await lock.release();
  });

  it.each(FORMATS)('a pid that no longer exists, in the %s format', async (_, format) => {
    const gone = await sleeper();
    const content = format(gone.pid); // while it runs: its start time
    process.kill(gone.pid, 'SIGKILL');
    await exited(gone);
    const dir = dataDir();
    writeFileSync(lockFile(dir), content);

    const lock = await lockDataDirectory(dir);
    expect(ownerOf(dir)).toBe(process.pid);
    await lock.release();
  });
});

describe('a lock whose owner runs refuses', () => {
  it.each(FORMATS)('a live process with its own start time, in the %s format', async (_, format) => {
    const owner = await sleeper();
    const dir = dataDir();
    writeFileSync(lockFile(dir), format(owner.pid));

    const refused = await lockDataDirectory(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirectoryInUseError);
    expect(refused).toMatchObject({ dataDir: dir, pid: owner.pid });
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(format(owner.pid)); // left alone
  });

  it('the lock it writes: its pid and (with /proc) start time, which it reads back as live; release() removes it', async () => {
    const dir = dataDir();
    const lock = await lockDataDirectory(dir);
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(hasProc ? newFormat(process.pid) : oldFormat(process.pid));
    await expect(lockDataDirectory(dir)).rejects.toMatchObject({ name: 'DataDirectoryInUseError', pid: process.pid });

    await lock.release();
    expect(existsSync(lockFile(dir))).toBe(false);
    await (await lockDataDirectory(dir)).release();
  });

  // The lock is linked into place whole, so no start can read it half-written and take it for a
  // stale one (that race, open-then-write, was too narrow to show on demand).
  it('of many starts at once, exactly one takes the lock, and none leaves its draft behind', async () => {
    const dir = dataDir();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        lockDataDirectory(dir).then(
          () => 'locked',
          (error: unknown) => (error as Error).name,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'locked')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'DataDirectoryInUseError')).toHaveLength(19);
    expect(readdirSync(dir)).toEqual(['npm-start.pid']); // no draft left behind
  });

  // (Three or more at the very same instant can still both run: see removeStale.)
  it('of two starts at once that find a stale lock, exactly one takes it over, round after round', async () => {
    for (let round = 0; round < 200; round += 1) {
      const dir = dataDir();
      writeFileSync(lockFile(dir), '999999999\n'); // no such process
      const outcomes = await Promise.all(
        Array.from({ length: 2 }, () =>
          lockDataDirectory(dir).then(
            () => 'locked',
            (error: unknown) => (error as Error).name,
          ),
        ),
      );
      expect([round, outcomes.filter((outcome) => outcome === 'locked').length]).toEqual([round, 1]);
      expect(outcomes.filter((outcome) => outcome !== 'locked')).toEqual(['DataDirectoryInUseError']);
      expect(readdirSync(dir)).toEqual(['npm-start.pid']);
      expect(ownerOf(dir)).toBe(process.pid);
    }
  });
});
