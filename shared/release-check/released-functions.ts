/**
 * The functions whose new versions the release check probes before CodeDeploy moves their `live`
 * alias: every function a request reaches. Not the key mirror (its alias moves at once, and it
 * serves no request), nor the check itself. Each is a function of the table (functions/table.ts;
 * test/infra/releases.test.ts holds the stack's releases to this list).
 */
export const RELEASED_FUNCTIONS = ['listPets', 'createPet', 'getPet', 'apiDocs', 'authorizer'] as const;

export type ReleasedFunction = (typeof RELEASED_FUNCTIONS)[number];
