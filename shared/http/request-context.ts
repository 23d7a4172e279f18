import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import type { TimedCallDeadline } from '../dynamodb/call-deadline';
import type { ApiProblem } from '../errors';
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
    /** When every DynamoDB call of this request must have ended (none without a Lambda context). */
    deadline: TimedCallDeadline | undefined;
    principal?: Principal;
    /**
     * Why the request is answered without running the operation: no usable key (401), then
     * invalid input (400, or 413 for a body too large). The first check to refuse sets it; it is
     * answered once counted.
     */
    refusal?: ApiProblem;
    /** The rate-limit status of this request, for the headers of its response. */
    rateLimit?: RateLimitStatus;
    /**
     * Settles when the limiter has decided: resolves when the request is admitted, rejects with
     * the refusal (429) or the counter store's failure (503). Reads run while it is pending.
     */
    admission?: Promise<void>;
    /** Refused before any work (a suspension this container knows of): the operation is not run. */
    shed?: boolean;
    /** Query, path and headers, validated; for an operation with a body, its body comes from `judgeBody`. */
    input?: ValidatedInput;
    /**
     * Judges the body (validateRequest): the body, or undefined with `refusal` set (a 400 naming
     * every failing part, or a 413). Left for the stack to call once the request is admitted, so
     * that a refused request parses none of its body.
     */
    judgeBody?: () => unknown;
    /** The error as thrown, before it was shaped into a response (for the log line of a 5xx). */
    failure?: unknown;
    /** The problem the error response told the client (for the log line's `code`). */
    problem?: ApiProblem;
  };
}

export interface ValidatedInput {
  readonly query: unknown;
  readonly path: unknown;
  readonly headers: unknown;
  readonly body: unknown;
}
