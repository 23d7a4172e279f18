import { GetApiKeyCommand, type GetApiKeyCommandOutput } from '@aws-sdk/client-api-gateway';
import { oneLine } from './answer-judgement';
import { pause } from '../abortable-pause';

/** The one API Gateway call a release's own functions make: the release key, with its value (functions/releaseCheck, functions/releaseProber). */
export interface ApiKeyReader {
  send(command: GetApiKeyCommand, options: { abortSignal: AbortSignal }): Promise<GetApiKeyCommandOutput>;
}

/** Between two tries of the release key's read refused for want of the right (IAM applying it). */
export const KEY_READ_RETRY_MS = 2_000;

/**
 * The release key's value and when it was made, read from API Gateway as the check starts (the
 * stack never passes the value: it is a credential), or the one line that says why it could not be:
 * the check then fails. A refusal for want of the right is tried again until the deadline: the right
 * comes in the same stack update as its first use (../../shared/release-check/hook-deadlines.ts).
 */
export async function readReleaseKey(
  apiGateway: ApiKeyReader,
  apiKeyId: string | undefined,
  deadlineMs: number,
): Promise<{ ok: true; value: string; createdAt: number | undefined } | { ok: false; problem: string }> {
  if (apiKeyId === undefined) return { ok: false, problem: 'RELEASE_API_KEY_ID is not set' };
  const signal = AbortSignal.timeout(deadlineMs);
  for (;;) {
    try {
      const { value, enabled, createdDate } = await apiGateway.send(
        new GetApiKeyCommand({ apiKey: apiKeyId, includeValue: true }),
        { abortSignal: signal },
      );
      if (typeof value !== 'string' || value === '')
        return { ok: false, problem: `the release key ${apiKeyId} came without its value` };
      if (enabled === false)
        return { ok: false, problem: `the release key ${apiKeyId} is disabled: enable it (docs/release-check.md)` };
      return { ok: true, value, createdAt: createdDate instanceof Date ? createdDate.getTime() : undefined };
    } catch (error) {
      if (error instanceof Error && error.name === 'AccessDeniedException' && !signal.aborted) {
        await pause(KEY_READ_RETRY_MS, signal);
        if (!signal.aborted) continue;
      }
      return {
        ok: false,
        problem: `the release key ${apiKeyId} could not be read: ${error instanceof Error ? `${error.name}: ${oneLine(error.message, 200)}` : 'unknown error'}`,
      };
    }
  }
}
