import { readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * One `npm start` per data directory: a second one on the same data would start a second
 * DynamoDB Local on the same files and overwrite the first one's endpoint file. The lock is a file
 * holding the owner's pid, made with O_EXCL; a lock whose process is gone is stale and taken over.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`another "npm start" (pid ${pid}) is using the data directory ${dataDir}. Stop it first, or give this one its own data, e.g. DATA_DIR=.data-2 PORT=3001 npm start.`);
    this.name = 'DataDirectoryInUseError';
  }
}

export interface DataDirectoryLock {
  release(): Promise<void>;
}

export const lockFile = (dataDir: string): string => resolve(dataDir, 'npm-start.pid');

export async function lockDataDirectory(dataDir: string): Promise<DataDirectoryLock> {
  const file = lockFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return { release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(owner) && owner > 0 && isRunning(owner)) throw new DataDirectoryInUseError(dataDir, owner);
    await rm(file, { force: true }); // stale: its process is gone
  }
  throw new Error(`could not lock the data directory ${dataDir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
