import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
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

/** Makes the data directory (and DynamoDB Local's folder in it) private, those made before this rule too. */
export async function privateDataDirectory(dataDir: string): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await makePrivate(dataDir);
}

async function makePrivate(path: string): Promise<void> {
  const info = await stat(path);
  await chmod(path, info.isDirectory() ? 0o700 : 0o600);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path)) await makePrivate(resolve(path, entry));
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

async function secretOf(file: string, make: () => string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const secret = make();
    await writeFile(file, `${secret}\n`, { mode: 0o600 });
    return secret;
  }
}

function randomAlphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: no letter is likelier than another.
  let text = '';
  while (text.length < length) for (const byte of randomBytes(length)) if (byte < 248 && text.length < length) text += alphabet[byte % 62];
  return text;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
