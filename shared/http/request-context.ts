import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
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
