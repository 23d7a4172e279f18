import type { FunctionName } from '../functions';

/**
 * The functions whose new versions the release check probes before CodeDeploy moves their `live`
 * alias: every function a request reaches. Not the key mirror (its alias moves at once, and it
 * serves no request), nor the check itself.
 */
export const RELEASED_FUNCTIONS = ['listPets', 'createPet', 'getPet', 'apiDocs', 'authorizer'] as const satisfies readonly FunctionName[];

export type ReleasedFunction = (typeof RELEASED_FUNCTIONS)[number];
