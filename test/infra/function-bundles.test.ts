import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '../../infra/bundling';
import { FUNCTIONS, OPERATION_IDS, type OperationId } from '../../shared/functions';

/**
 * What each function bundles, for its cold start (docs/performance.md#what-a-cold-start-spends):
 * building zod schemas is most of what zod adds to one, so a function builds only the schemas of
 * its own request, and the authorizer none.
 */
const root = join(import.meta.dirname, '..', '..');

/** The module holding each operation's request schemas. */
const REQUEST_MODULES: Record<OperationId, string> = {
  listPets: 'shared/pets/list-pets-query.ts',
  createPet: 'shared/pets/new-pet.ts',
  getPet: 'shared/pets/pet-id-path.ts',
};
/** Schemas only the interface description and the tests use. */
const DESCRIPTION_ONLY = ['shared/pets/schema.ts', 'shared/pets/operation-schemas.ts', 'shared/pets/pet.ts'];

async function inputsOf(name: keyof typeof FUNCTIONS): Promise<string[]> {
  const result = await build({ ...esbuildOptionsFor(join(root, FUNCTIONS[name].handler), join(root, 'bench', '.build', 'unused.mjs')), write: false, metafile: true });
  return Object.keys(result.metafile?.inputs ?? {});
}

describe('function bundles', () => {
  it('each operation builds the schemas of its own request only, none of the others or of the answers', async () => {
    for (const operation of OPERATION_IDS) {
      const inputs = await inputsOf(operation);
      const others = Object.values(REQUEST_MODULES).filter((module) => module !== REQUEST_MODULES[operation]);
      expect([operation, inputs.includes(REQUEST_MODULES[operation])]).toEqual([operation, true]);
      expect([operation, inputs.filter((input) => others.includes(input) || DESCRIPTION_ONLY.includes(input))]).toEqual([operation, []]);
    }
  }, 60_000);

  it('the authorizer bundles no zod at all', async () => {
    const inputs = await inputsOf('authorizer');
    expect(inputs.some((input) => input.startsWith('shared/'))).toBe(true);
    expect(inputs.filter((input) => input.includes('node_modules/zod/'))).toEqual([]);
  }, 60_000);
});
