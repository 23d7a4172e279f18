import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * One `npm start` per data directory: a second one on the same data would start a second
 * DynamoDB Local on the same files and overwrite the first one's endpoint file. The lock is a file
 * made with O_EXCL holding the owner's pid and, where there is a /proc (Linux), its start time:
 * a pid alone cannot tell the owner from a process that got its pid after a crash. A lock whose
 * process is gone, a zombie, or another process with the same pid is stale and taken over.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another "npm start" (pid ${pid}) is using the data directory ${dataDir}. Stop it first, or give this one its own data, e.g. DATA_DIR=.data-2 PORT=3001 npm start.`,
    );
    this.name = 'DataDirectoryInUseError';
  }
}

export interface DataDirectoryLock {
  release(): Promise<void>;
}

export const lockFile = (dataDir: string): string => resolve(dataDir, 'npm-start.pid');

const HAS_PROC = existsSync('/proc/self/stat'); // Linux; macOS has none

export async function lockDataDirectory(dataDir: string): Promise<DataDirectoryLock> {
  const file = lockFile(dataDir);
  const self = HAS_PROC ? await processStat(process.pid).catch(() => undefined) : undefined;
  const content = self === undefined ? `${process.pid}\n` : `${process.pid} ${self.startTime}\n`;
  // Written whole under a name of its own, then linked into place (which fails when a lock is
  // there): another start never reads a lock half-written, which it would take for a stale one.
  const draft = `${file}.${randomUUID()}`;
  await writeFile(draft, content);
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      try {
        await link(draft, file);
        return { release: () => rm(file, { force: true }) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      // "pid start-time", or the pid alone (no /proc, or an older checkout's lock).
      const seen = await readFile(file, 'utf8').catch(() => undefined);
      if (seen === undefined) continue; // gone meanwhile: try again
      const [pid, startTime] = seen.trim().split(/\s+/);
      const owner = Number(pid);
      if (Number.isSafeInteger(owner) && owner > 0 && (await isRunning(owner, startTime)))
        throw new DataDirectoryInUseError(dataDir, owner);
      await removeStale(file, seen); // its process is gone, a zombie, or another one
    }
  } finally {
    await rm(draft, { force: true });
  }
  throw new Error(`could not lock the data directory ${dataDir}`);
}

/** Enough for several starts at once after a crash: each round, one of them takes the lock. */
const MAX_ATTEMPTS = 10;

/**
 * Removes the lock judged stale, and only it: moved aside first (one start alone can move a given
 * file), it is put back if it is not the one judged, since another start took the directory over
 * meanwhile. A plain remove by name could delete that start's new lock, and both would run. (A
 * third start that links its lock in the instant between the move and the putting back still
 * can: three starts on one directory in the same millisecond after a crash.)
 */
async function removeStale(file: string, judged: string): Promise<void> {
  const aside = `${file}.${randomUUID()}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another start moved it first
    throw error;
  }
  if ((await readFile(aside, 'utf8')) !== judged) await link(aside, file).catch(() => undefined);
  await rm(aside, { force: true });
}

/**
 * Whether the lock's owner still runs: its pid names a process that is not a zombie (exited, not
 * yet reaped, which without an init may be never) and, when the lock recorded a start time, that
 * started then (not another process that got the pid since).
 */
async function isRunning(pid: number, startTime: string | undefined): Promise<boolean> {
  if (!HAS_PROC) return exists(pid); // macOS: kill(0), which cannot tell a zombie
  // No /proc/<pid>: gone (or hidden from us, hidepid: another user's, so not our npm start).
  const stat = await processStat(pid).catch(() => undefined);
  if (stat === undefined || stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === undefined || stat.startTime === startTime;
}

/** Fields 3 (state) and 22 (start time, in clock ticks since boot) of /proc/<pid>/stat. */
async function processStat(pid: number): Promise<{ state: string; startTime: string }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Field 2, the command's name in parentheses, may hold spaces and ')': count from its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
