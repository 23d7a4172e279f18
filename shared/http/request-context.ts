import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import type { UnauthorizedError } from '../errors';
import type { RateLimitStatus } from '../limits/rate-limiter';
import type { OperationId } from './routes';

/**
 * What the middlewares learn about one request, carried on the Lambda context so that each
 * middleware stays a small function of (request) and the operation receives typed input.
 */
export interface HttpContext extends Context {
  petStore: {
    operationId: OperationId;
    requestId: string;
    startedAt: number;
    principal?: Principal;
    /** Why there is no principal (no key, a malformed or unknown one); answered after counting. */
    authFailure?: UnauthorizedError;
    /** The rate-limit status of this request, for the headers of its response. */
    rateLimit?: RateLimitStatus;
    /**
     * Settles when the limiter has decided: resolves when the request is admitted, rejects with
     * the refusal (429) or the counter store's failure (503). Reads run while it is pending.
     */
    admission?: Promise<void>;
    input?: ValidatedInput;
    /** The error as thrown, before it was shaped into a response (for the log line). */
    failure?: unknown;
  };
}

export interface ValidatedInput {
  readonly query: unknown;
  readonly path: unknown;
  readonly body: unknown;
}
