import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CursorKeys, CursorKeySource } from '../pets/cursor-secrets';
import { WORST_SECRET_READ_MS } from './client';

/**
 * The page cursors' keys in AWS: one Secrets Manager secret holding a plain string. Rotating it
 * (`put-secret-value`) moves the label AWSCURRENT to the new value and AWSPREVIOUS to the old one,
 * so the current key is the AWSCURRENT version and the previous key the AWSPREVIOUS one, which
 * does not exist before the first rotation (Secrets Manager's ResourceNotFoundException: no
 * previous key). Both are read at once, in one round trip. The client is made at the first read.
 */
export class SecretsManagerCursorKeys implements CursorKeySource {
  readonly worstReadMs = WORST_SECRET_READ_MS;
  #client: SecretsManagerClient | undefined;

  constructor(
    private readonly secretId: string,
    private readonly makeClient: () => SecretsManagerClient,
  ) {}

  async read(): Promise<CursorKeys> {
    // Both settle before the read does: no call of a failed read is left running after it.
    const [current, previous] = await Promise.allSettled([this.#value('AWSCURRENT'), this.#value('AWSPREVIOUS')]);
    if (current.status === 'rejected') throw current.reason;
    if (previous.status === 'rejected') throw previous.reason;
    if (current.value === undefined) throw new Error(`the cursor secret ${this.secretId} has no current value`);
    return { current: current.value, previous: previous.value };
  }

  async #value(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
    this.#client ??= this.makeClient();
    try {
      const { SecretString } = await this.#client.send(
        new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: stage }),
      );
      // A binary or empty secret is a deployment mistake: a 500 whose log line says so.
      if (SecretString === undefined || SecretString === '')
        throw new Error(`the ${stage} value of the cursor secret is not a non-empty string`);
      return SecretString;
    } catch (error) {
      if (stage === 'AWSPREVIOUS' && (error as { name?: unknown }).name === 'ResourceNotFoundException')
        return undefined;
      // Throttled or out of reach: already a ServiceUnavailableError (./client.ts); anything else is a 500.
      throw error;
    }
  }
}
