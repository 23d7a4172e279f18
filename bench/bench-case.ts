/**
 * What a bench case is: the bench's own types, which an operation's declaration takes its cases in
 * (functions/operation-declaration.ts), so that the declarations say nothing the bench does not read
 * and the bench depends on no declaration for them. Types only: bench/cases.ts makes the cases.
 */
import type { EventSpec, RequestEventSpec } from './children/events.mjs';
import type { SetupName } from './setups';

export interface BenchCase {
  readonly event: EventSpec;
  /**
   * Data each request needs, made before it and not timed (bench/setups.ts: a fresh pet, its id
   * filled into the path): a request that reads or uses up data of its own. Every runner sending
   * the case to a table makes it; where none is made (the overhead's stub) the setup's placeholder is sent.
   */
  readonly setup?: SetupName;
  /** What it answers; for the authorizer, what API Gateway then answers: 200 Allow, 401 Unauthorized, 429 Deny. */
  readonly status: number;
  /** Timed with DynamoDB answered by a stub (the overhead table, under the case's name). */
  readonly timedWithoutIo: boolean;
  /** Measured through the recording proxy against DynamoDB Local (the DynamoDB table, under its label). */
  readonly dynamoDb?: {
    readonly label: string;
    /** The target: the round trips to DynamoDB it waits for, at most. */
    readonly maxRoundTrips: number;
    /** The target for a page: the items it reads, at most (each shard's query bounded by its share: shared/pets/page-merge.ts). */
    readonly maxItemsRead?: number;
    /** Its share of the requests in the cost mix (npm run cost); the shares add up to 1. */
    readonly costShare?: number;
  };
}

/**
 * A bench case as an operation declares it: its request on the operation's route (query, path
 * parameters, body, …), the status it answers (one the declaration names), and how it is
 * measured. Every case also runs in `npm test`, through the local rights check
 * (test/http/declared-rights.test.ts) and against the baseline twin.
 */
export type OperationBenchCase = Omit<BenchCase, 'event'> & {
  readonly request?: Omit<RequestEventSpec, 'type' | 'method' | 'resource'>;
};

/** An operation's cases, in its declaration (`bench`). */
export interface OperationBenchCases {
  /** The case its cold starts, warm end-to-end requests and load run serve. */
  readonly main: string;
  readonly cases: Readonly<Record<string, OperationBenchCase>>;
}
