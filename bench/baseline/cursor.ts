import { createHmac } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
// The service's clock, as ours reads it.
import { now } from '../../shared/clock';

/**
 * The baseline's page cursors, by hand: the keys are Secrets Manager's AWSCURRENT and AWSPREVIOUS
 * values of CURSOR_SECRET_ARN (or CURSOR_SECRET and CURSOR_SECRET_PREVIOUS without it), read with
 * the same SDK client and bounds as ours, at the same moment, and again after five minutes or (at
 * most once a minute) for a cursor neither key signed. Signed with the current key, accepted with
 * either. Only the baseline's listPets imports this file.
 */
interface Keys {
  current: string;
  previous: string | undefined;
  readAt: number;
}

const ARN = process.env.CURSOR_SECRET_ARN;
const ENDPOINT = process.env.SECRETS_MANAGER_ENDPOINT;
let client: SecretsManagerClient | undefined;
let keys: Keys | undefined;
let reading: Promise<Keys> | undefined;
let lastReadAt = Number.NEGATIVE_INFINITY;
let lastUnknownReadAt = Number.NEGATIVE_INFINITY;

async function stage(name: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
  client ??= new SecretsManagerClient({
    region: process.env.AWS_REGION ?? 'eu-west-1',
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 500, requestTimeout: 1_000, throwOnRequestTimeout: true },
    ...(ENDPOINT ? { endpoint: ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    return (await client.send(new GetSecretValueCommand({ SecretId: ARN, VersionStage: name }))).SecretString;
  } catch (error) {
    if (name === 'AWSPREVIOUS' && (error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

function read(): Promise<Keys> {
  const at = now();
  lastReadAt = at;
  const next = ARN
    ? Promise.all([stage('AWSCURRENT'), stage('AWSPREVIOUS')]).then(([current, previous]) => ({
        current: current ?? '',
        previous,
        readAt: at,
      }))
    : Promise.resolve({
        current: process.env.CURSOR_SECRET ?? '',
        previous: process.env.CURSOR_SECRET_PREVIOUS,
        readAt: at,
      });
  reading = next.then(
    (read) => {
      reading = undefined;
      keys = read;
      return read;
    },
    (error: unknown) => {
      reading = undefined;
      throw error;
    },
  );
  reading.catch(() => {});
  return reading;
}

/** The keys to use now: the known ones while fresh (or while a failed read is under a minute old), else a read. */
export function cursorKeys(): Keys | Promise<Keys> {
  if (keys !== undefined && now() - keys.readAt < 300_000) return keys;
  if (reading !== undefined) return reading;
  if (keys !== undefined && now() - lastReadAt < 60_000) return keys;
  return read().catch((error: unknown) => {
    if (keys === undefined) throw error;
    return keys;
  });
}

/** Starts reading the keys if they must be read, without waiting. */
export function prepareCursorKeys(): void {
  const pending = cursorKeys();
  if (pending instanceof Promise) pending.catch(() => {});
}

const tagOf = (key: string, body: string) =>
  createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url');

/** With the bound of the page that made it, as ours (`n`). */
export function signCursor(key: string, afterId: number, status: string | undefined, newestId: number): string {
  const body = Buffer.from(
    status ? `{"v":1,"a":${afterId},"s":"${status}","n":${newestId}}` : `{"v":1,"a":${afterId},"n":${newestId}}`,
  ).toString('base64url');
  return `${body}.${tagOf(key, body)}`;
}

/** The position of a cursor (after which id, up to which id at least); undefined when it is not one of ours or for another filter. A cursor neither key signed reads the keys again, at most once a minute. */
export async function readCursor(
  cursor: string,
  status: string | undefined,
): Promise<{ afterId: number; newestId: number } | undefined> {
  const [body, tag] = cursor.split('.');
  if (body === undefined || tag === undefined) return undefined;
  let known = await cursorKeys();
  const signed = (with_: Keys) =>
    tagOf(with_.current, body) === tag || (with_.previous !== undefined && tagOf(with_.previous, body) === tag);
  if (!signed(known)) {
    if (reading === undefined) {
      if (now() - lastUnknownReadAt < 60_000) return undefined;
      lastUnknownReadAt = now();
    }
    known = await (reading ?? read());
    if (!signed(known)) return undefined;
  }
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a?: number; s?: string; n?: number };
  if (payload.s !== status || !Number.isSafeInteger(payload.a)) return undefined;
  // As ours: a bound, when there is one, is an id above the position.
  if (payload.n !== undefined && !(Number.isSafeInteger(payload.n) && (payload.n as number) > (payload.a as number)))
    return undefined;
  return { afterId: payload.a as number, newestId: payload.n ?? 0 };
}
