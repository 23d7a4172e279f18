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

/** A yes-or-no setting (`-c name=true`): absent is false; anything but true or false is refused, not read as false. */
export function booleanSetting(value: unknown, name: string): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new ConfigurationError(`${name} must be true or false; got ${JSON.stringify(value)}`);
}
