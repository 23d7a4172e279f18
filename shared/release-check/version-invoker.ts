import { InvokeCommand, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { pause } from '../abortable-pause';
import type { InvocationOutcome, Invoke } from './invocation';

/** Lambda's synchronous invocation, as a release's own functions make it (functions/releaseCheck, functions/releaseProber). */
export interface LambdaInvoker {
  send(command: InvokeCommand, options: { abortSignal: AbortSignal }): Promise<InvokeCommandOutput>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Waits between two tries of a throttled invocation: 0.25 s, doubling, at most 2 s; tried again
 * until the probe's deadline aborts it. Lambda throttles when the account's (or the function's)
 * concurrency is used up: on a new account's 10 executions, the five checks of a release and live
 * traffic may take them all for a moment (docs/release-check.md#a-new-accounts-concurrency).
 */
export const THROTTLED_RETRY_MS = { first: 250, most: 2_000 } as const;

/**
 * Invokes the version of each function, synchronously, as API Gateway would; a function error is an
 * outcome, not a failure. A throttled invocation is tried again until `signal` aborts, unless
 * `retryThrottled` is false (the release prober: a throttle says nothing of the version, and its
 * next round comes).
 */
export function invokeVersions<Name extends string>(
  lambda: LambdaInvoker,
  targets: Readonly<Record<Name, string>>,
  { retryThrottled = true }: { readonly retryThrottled?: boolean } = {},
): Invoke<Name> {
  return async (functionName, event, signal): Promise<InvocationOutcome> => {
    const command = new InvokeCommand({
      FunctionName: targets[functionName],
      InvocationType: 'RequestResponse',
      Payload: encoder.encode(JSON.stringify(event)),
    });
    let output: InvokeCommandOutput | undefined;
    for (
      let wait: number = THROTTLED_RETRY_MS.first;
      output === undefined;
      wait = Math.min(wait * 2, THROTTLED_RETRY_MS.most)
    ) {
      try {
        output = await lambda.send(command, { abortSignal: signal });
      } catch (error) {
        if (!retryThrottled || !isThrottled(error) || signal.aborted) throw error;
        await pause(wait, signal);
      }
    }
    const text = output.Payload === undefined ? '' : decoder.decode(output.Payload);
    if (output.FunctionError !== undefined) {
      // Lambda's error payload: {"errorType":"Error","errorMessage":"Unauthorized","trace":[...]}.
      const error = parsedOrUndefined(text) as { errorType?: unknown; errorMessage?: unknown } | undefined;
      return {
        kind: 'functionError',
        errorType: typeof error?.errorType === 'string' ? error.errorType : output.FunctionError,
        errorMessage: typeof error?.errorMessage === 'string' ? error.errorMessage : '',
      };
    }
    return { kind: 'returned', payload: text === '' ? null : (JSON.parse(text) as unknown) };
  };
}

/** Lambda's throttle: the concurrency is used up (the SDK's own attempts too). */
export const isThrottled = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TooManyRequestsException';

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
