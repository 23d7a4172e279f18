import { readFileSync } from 'node:fs';
import { CURRENT_VERSION_EXPIRED_FLAGS, FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';

/**
 * `cdk synth` reports the feature flags cdk.json leaves unset; every flag of this aws-cdk-lib that
 * has a recommended value is set to it (flags that expired with CDK v2 cannot be set), so the
 * report stays empty after an upgrade only once the new flags are chosen.
 */
const context = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

describe('cdk.json', () => {
  it('sets every current feature flag to its recommended value', () => {
    const expired = new Set<string>(CURRENT_VERSION_EXPIRED_FLAGS);
    const unset = Object.entries(FLAGS)
      .filter(([name, flag]) => !expired.has(name) && flag.recommendedValue !== undefined)
      .filter(([name, flag]) => JSON.stringify(context[name]) !== JSON.stringify(flag.recommendedValue))
      .map(([name]) => name);
    expect(unset).toEqual([]);
  });
});
