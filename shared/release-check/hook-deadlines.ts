import { CHECK_DEADLINE_MS } from './run-release-check';

/**
 * The release check's hook, in time (functions/releaseCheck/handler.ts): it reads the release key,
 * runs the check, reports to CodeDeploy; its function's timeout (infra/pet-store-stack.ts) is their
 * sum with a margin each, so that it always reports before Lambda stops it.
 */

/**
 * Reading the release key's value from API Gateway, its tries included: an `AccessDenied` is tried
 * again for a while, because the right to read it comes in the same stack update as its first use,
 * and IAM may take some seconds to apply it everywhere.
 */
export const KEY_READ_DEADLINE_MS = 40_000;
/** The report, with the SDK's attempts: CodeDeploy answers in milliseconds. */
export const REPORT_DEADLINE_MS = 10_000;
/** Left after each part. */
export const HOOK_MARGIN_MS = 1_000;
/** The hook function's timeout: 142 s. (CodeDeploy itself waits up to an hour for a hook's report.) */
export const HOOK_TIMEOUT_SECONDS = Math.ceil(
  (KEY_READ_DEADLINE_MS + CHECK_DEADLINE_MS + REPORT_DEADLINE_MS + 2 * HOOK_MARGIN_MS) / 1000,
);
