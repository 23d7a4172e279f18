import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * What makes `npm start`'s data its user's alone. DynamoDB Local cannot be told to listen on
 * loopback only: it listens on every interface. But without `-sharedDb` it keeps one database per
 * access key and region, so the run talks to it with an access key of its own, random, kept in
 * the data directory: anyone else who reaches the port gets an empty database of their own (a
 * file beside ours), not our pets or keys. The data directory and its files are its user's only
 * (0700, 0600), and so is everything DynamoDB Local writes there (the process's umask).
 */
export const PRIVATE_UMASK = 0o077;

/** The files npm start keeps in its data directory (DynamoDB Local's folder aside): the only ones it makes private. */
const OWN_FILES = ['cursor-secret', 'dynamodb-access-key', 'dynamodb-endpoint', 'npm-start.pid'];

/** Makes the data directory and what npm start keeps in it private (call with its lock held), those made before this rule too. */
export async function privateDataDirectory(dataDir: string): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  // Only its own files, never through a symbolic link, nor anything else a DATA_DIR may hold.
  for (const name of OWN_FILES) await makePrivate(resolve(dataDir, name), 0o600);
  const folder = dynamoDbFolder(dataDir);
  if (!(await makePrivate(folder, 0o700))) return;
  for (const name of await readdir(folder)) if (name.endsWith('.db')) await makePrivate(resolve(folder, name), 0o600);
}

/** chmod, but only of a regular file or a folder that is there (not a link); whether it was. */
async function makePrivate(path: string, mode: number): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined || info.isSymbolicLink() || !(info.isFile() || info.isDirectory())) return false;
  await chmod(path, mode);
  return true;
}

/** The folder in which DynamoDB Local keeps the run's data. */
export function dynamoDbFolder(dataDir: string): string {
  return resolve(dataDir, 'dynamodb');
}

/** The cursor secret of this data directory, made on first use. */
export function cursorSecret(dataDir: string): Promise<string> {
  return secretOf(resolve(dataDir, 'cursor-secret'), () => randomBytes(32).toString('base64url'));
}

/**
 * The access key of this data directory's DynamoDB Local database, made on first use: 32 letters
 * and digits (DynamoDB Local accepts no other characters), about 190 bits. A data directory from
 * before this rule kept its data in DynamoDB Local's shared database: that file becomes this key's.
 */
export async function dynamoDbAccessKey(dataDir: string, region: string): Promise<string> {
  const key = await secretOf(resolve(dataDir, 'dynamodb-access-key'), () => randomAlphanumeric(32));
  if (!/^[A-Za-z0-9]+$/.test(key))
    throw new Error(`${resolve(dataDir, 'dynamodb-access-key')} is not an access key (letters and digits only)`);
  const shared = resolve(dynamoDbFolder(dataDir), 'shared-local-instance.db');
  const own = resolve(dynamoDbFolder(dataDir), `${key}_${region}.db`);
  if ((await exists(shared)) && !(await exists(own))) await rename(shared, own);
  return key;
}

/** The access key a running `npm start` uses, for `npm run keys` (which never makes one). */
export async function readDynamoDbAccessKey(dataDir: string): Promise<string | undefined> {
  try {
    return (await readFile(resolve(dataDir, 'dynamodb-access-key'), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** The secret in `file`; made only when there is none (any other failure to read it is an error, not a new secret). */
async function secretOf(file: string, make: () => string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const secret = make();
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  }
  const secret = text.trim();
  if (secret === '') throw new Error(`${file} is empty: restore it, or delete it to start with new data`);
  return secret;
}

function randomAlphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: no letter is likelier than another.
  let text = '';
  while (text.length < length)
    for (const byte of randomBytes(length)) if (byte < 248 && text.length < length) text += alphabet[byte % 62];
  return text;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
