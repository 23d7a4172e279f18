/**
 * A bound on when an SDK command may still send an attempt: its retries (after a throttle, a lost
 * connection) are sent only before `until`; past it the command fails with AttemptTooLateError
 * instead of sending. An attempt already sent is not cut: it ends as the call's own bounds say.
 */
export class AttemptTooLateError extends Error {
  constructor() {
    super('a retry would be sent too late');
    this.name = 'AttemptTooLateError';
  }
}

interface CommandWithMiddleware {
  middlewareStack: { add: (middleware: never, options: { step: 'finalizeRequest' }) => void };
}

export function attemptsOnlyUntil<C extends CommandWithMiddleware>(command: C, until: number, now: () => number): C {
  const middleware = (next: (args: unknown) => Promise<unknown>) =>
    function beforeEachAttempt(args: unknown) {
      if (now() >= until) return Promise.reject(new AttemptTooLateError());
      return next(args);
    };
  // In the finalizeRequest step, below the SDK's retry middleware (its priority is high): it runs before every attempt.
  command.middlewareStack.add(middleware as never, { step: 'finalizeRequest' });
  return command;
}
