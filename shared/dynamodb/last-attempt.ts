/**
 * A bound on when an SDK command may still send an attempt: its retries (after a throttle, a lost
 * connection) are sent only before `until`; past it the command fails with AttemptTooLateError
 * instead of sending, saying how many attempts went and how each failed. An attempt already sent
 * is not cut: it ends as the call's own bounds say.
 */
export class AttemptTooLateError extends Error {
  constructor(
    /** The attempts sent before the bound passed (0: none). */
    readonly attemptsSent: number,
    /** How each of them failed, in order. */
    readonly failures: readonly unknown[],
  ) {
    super('a retry would be sent too late');
    this.name = 'AttemptTooLateError';
  }
}

interface CommandWithMiddleware {
  middlewareStack: { add: (middleware: never, options: { step: 'finalizeRequest' }) => void };
}

export function attemptsOnlyUntil<C extends CommandWithMiddleware>(command: C, until: number, now: () => number): C {
  const failures: unknown[] = [];
  const middleware = (next: (args: unknown) => Promise<unknown>) =>
    async function beforeEachAttempt(args: unknown) {
      if (now() >= until) throw new AttemptTooLateError(failures.length, failures);
      try {
        return await next(args);
      } catch (error) {
        failures.push(error);
        throw error;
      }
    };
  // In the finalizeRequest step, below the SDK's retry middleware (its priority is high): it runs before every attempt.
  command.middlewareStack.add(middleware as never, { step: 'finalizeRequest' });
  return command;
}
