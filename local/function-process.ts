import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { InvocationOutcome } from '../shared/release-check/invocation';

/**
 * One function's bundle in a child process of its own, with its own environment, invoked as Lambda
 * invokes it (local/function-runtime.mjs is the child's side): its result is the outcome, a throw
 * (on load or on invoke) is a function error, and so are running past the function's timeout and
 * the process dying. For the release drill (local/release-drill.ts).
 */
export interface FunctionProcess {
  invoke(event: unknown, signal?: AbortSignal): Promise<InvocationOutcome>;
  /** Ends the process (SIGTERM, then SIGKILL); resolves once it is gone. */
  stop(): Promise<void>;
}

export interface FunctionProcessOptions {
  readonly name: string;
  readonly bundle: string;
  /** The whole environment of the process: nothing of this one's is passed on. */
  readonly env: Readonly<Record<string, string>>;
  /** The function's timeout, as the stack sets it. */
  readonly timeoutMs: number;
  /** Where the process's stderr goes, line by line (its stdout, the function's log lines, is dropped). */
  readonly onStderr?: (line: string) => void;
}

const RUNTIME = join(import.meta.dirname, 'function-runtime.mjs');
/** How long a process may take to end on SIGTERM before it is killed. */
const STOP_GRACE_MS = 2_000;

type Answer = {
  readonly id: string;
  readonly payload?: unknown;
  readonly error?: { readonly errorType: string; readonly errorMessage: string };
};

export function startFunctionProcess({
  name,
  bundle,
  env,
  timeoutMs,
  onStderr,
}: FunctionProcessOptions): FunctionProcess {
  const child: ChildProcess = fork(RUNTIME, [bundle, name, String(timeoutMs)], {
    env: { ...env },
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const pending = new Map<string, (outcome: InvocationOutcome) => void>();
  let exit: string | undefined;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const lines = stderr.split('\n');
    stderr = lines.pop() ?? '';
    for (const line of lines) onStderr?.(line);
  });
  child.on('message', (message: Answer) => {
    const settle = pending.get(message.id);
    pending.delete(message.id);
    settle?.(
      message.error === undefined
        ? { kind: 'returned', payload: message.payload }
        : { kind: 'functionError', ...message.error },
    );
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      // As Lambda says of a runtime that exits during an invocation.
      exit = `Runtime exited with ${signal === null ? `error: exit status ${code}` : `signal: ${signal}`}`;
      for (const settle of pending.values())
        settle({ kind: 'functionError', errorType: 'Runtime.ExitError', errorMessage: exit });
      pending.clear();
      resolve();
    });
  });
  // A process that cannot be started or reached fails the invocations waiting on it.
  child.on('error', (error) => {
    for (const settle of pending.values())
      settle({ kind: 'functionError', errorType: 'Runtime.Unknown', errorMessage: error.message });
    pending.clear();
  });
  // Should this process end without stop(), the child goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  return {
    invoke(event, signal) {
      if (exit !== undefined)
        return Promise.resolve({ kind: 'functionError', errorType: 'Runtime.ExitError', errorMessage: exit });
      const id = randomUUID();
      return new Promise<InvocationOutcome>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            settle({
              kind: 'functionError',
              errorType: 'Sandbox.Timedout',
              errorMessage: `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
            }),
          timeoutMs,
        );
        const aborted = () => {
          pending.delete(id);
          clearTimeout(timer);
          reject(signal?.reason ?? new Error('aborted'));
        };
        function settle(outcome: InvocationOutcome): void {
          pending.delete(id);
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          resolve(outcome);
        }
        if (signal?.aborted === true) return aborted();
        signal?.addEventListener('abort', aborted, { once: true });
        pending.set(id, settle);
        child.send({ id, event }, (error) => {
          if (error !== null)
            settle({ kind: 'functionError', errorType: 'Runtime.Unknown', errorMessage: error.message });
        });
      });
    },
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      if (stderr !== '') onStderr?.(stderr);
      stderr = '';
    },
  };
}
