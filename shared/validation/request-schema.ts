/**
 * What the request validation takes for each part of a request (query, path, headers, body): a
 * Standard Schema (standardschema.dev), synchronous, whose issues carry a path of plain keys, as
 * zod's do. zod's schemas are ones; the functions validate with checks generated from them
 * (`npm run generate`: functions/<operationId>/request-checks.generated.ts), which give the same
 * answers without building a schema at a cold start (docs/performance.md#what-a-cold-start-spends).
 */

/** A failure, as zod reports it: the request validation reads these fields and no other. */
export interface RequestIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
  /** zod's issue codes: `invalid_type` (a missing field among them) and `unrecognized_keys` are told apart. */
  readonly code?: string;
  /** The unknown members of an `unrecognized_keys` issue. */
  readonly keys?: readonly string[];
}

export type RequestCheckResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly RequestIssue[] };

export interface RequestPartSchema<Output = unknown> {
  readonly '~standard': {
    readonly validate: (value: unknown) => RequestCheckResult<Output> | Promise<unknown>;
    /** Types only (Standard Schema's): what a valid part becomes. */
    readonly types?: { readonly output: Output } | undefined;
  };
}

/** The headers an operation reads: their schema, and their names in canonical spelling (`Idempotency-Key`); no other header is looked at. */
export interface RequestHeadersSchema<Output = unknown> extends RequestPartSchema<Output> {
  readonly names: readonly string[];
}

export type OutputOf<Schema extends RequestPartSchema> = NonNullable<Schema['~standard']['types']>['output'];

/**
 * What a check returns: the part's value, any of whose fields may be undefined where the check
 * pushed an issue (the value is used only when it pushed none).
 */
export type CheckedValue<Output> = { -readonly [Key in keyof Output]: Output[Key] | undefined };

/**
 * A request part's schema from a check written by hand: `check` reads the value, pushes what is
 * wrong to `issues` and returns what the value becomes (used only when nothing was pushed).
 */
export function requestPart<Output>(
  check: (value: unknown, issues: RequestIssue[]) => CheckedValue<Output> | undefined,
): RequestPartSchema<Output> {
  return {
    '~standard': {
      validate(value) {
        const issues: RequestIssue[] = [];
        const output = check(value, issues);
        return issues.length === 0 ? { value: output as Output } : { issues };
      },
    },
  };
}

/** The headers' schema from a check: `names` are the headers it reads, in canonical spelling. */
export function requestHeaders<Output>(
  names: readonly string[],
  check: (value: unknown, issues: RequestIssue[]) => CheckedValue<Output> | undefined,
): RequestHeadersSchema<Output> {
  return { names, ...requestPart(check) };
}
