/**
 * A setting given to `cdk synth|deploy` (`-c ...` or cdk.json's context) that is missing or wrong:
 * the operator's to fix, so the app prints its message in one line and exits 1, without a stack
 * trace (infra/app.ts). Anything else thrown while building the app is the code's bug and keeps
 * its trace.
 */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}
