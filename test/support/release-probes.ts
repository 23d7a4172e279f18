import type { ProbeResult } from '../../shared/release-check/run-release-check';
import type { ReleasedFunction } from '../../shared/release-check/released-functions';

/** Every probe of the release check, in its order, as its result names it. */
export const PROBES: readonly { readonly functionName: ReleasedFunction; readonly name: string }[] = [
  { functionName: 'listPets', name: 'listPets: GET /v1/pets?limit=1' },
  { functionName: 'getPet', name: 'getPet: GET /v1/pets/10970726400000' },
  { functionName: 'createPet', name: 'createPet: POST /v1/pets (an invalid pet)' },
  { functionName: 'apiDocs', name: 'apiDocs: GET /v1/openapi.json' },
  { functionName: 'apiDocs', name: 'apiDocs: GET /v1/docs' },
  { functionName: 'apiDocs', name: 'apiDocs: GET /v1/docs/swagger-ui-bundle.js' },
  { functionName: 'apiDocs', name: 'apiDocs: GET /v1/docs/swagger-ui.css' },
  { functionName: 'authorizer', name: 'authorizer: GET /v1/pets with an unknown token' },
];

/** The check's result when every probe passes but those given, which fail with their reason (by probe name). */
export function resultsWith(failures: Readonly<Record<string, string>> = {}): ProbeResult[] {
  return PROBES.map(({ functionName, name }) => (failures[name] === undefined ? { name, functionName, passed: true } : { name, functionName, passed: false, reason: failures[name] }));
}
