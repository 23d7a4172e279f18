import { config } from '../config';
import { createSecretsManagerClient } from '../secrets-manager/client';
import { SecretsManagerCursorKeys } from '../secrets-manager/cursor-keys';
import { CursorSecrets, environmentCursorKeys } from './cursor-secrets';

/**
 * The page cursors of listPets, created once per container: their keys from Secrets Manager when
 * CURSOR_SECRET_ARN is set (AWS), else from CURSOR_SECRET and CURSOR_SECRET_PREVIOUS (npm start,
 * the tests). Only listPets imports this file: createPet and getPet bundle no Secrets Manager client.
 */
export const pageCursors = new CursorSecrets(
  config.cursorSecretArn === undefined
    ? environmentCursorKeys(config)
    : new SecretsManagerCursorKeys(config.cursorSecretArn, () => createSecretsManagerClient(config)),
);
