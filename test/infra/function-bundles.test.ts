import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ReadableStream } from '../../infra/bundle-shims/node-stream-web';
import { BUNDLE_ALIASES, esbuildOptionsFor } from '../../infra/bundling';
import { FUNCTIONS, OPERATION_IDS, type OperationId } from '../../shared/functions';

/**
 * What each function bundles, for its cold start (docs/performance.md#what-a-cold-start-spends):
 * zod's share of a cold start grows with the schemas, and the kinds of schema, a function builds (V8 compiles
 * zod's code for each kind), so a function builds only the schemas of its own request, and the
 * authorizer none.
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

async function bundle(name: keyof typeof FUNCTIONS, aliases = true) {
  const options = esbuildOptionsFor(join(root, FUNCTIONS[name].handler), join(root, 'bench', '.build', 'unused.mjs'));
  return build({ ...options, ...(aliases ? {} : { alias: {} }), write: false, metafile: true });
}

async function inputsOf(name: keyof typeof FUNCTIONS): Promise<string[]> {
  return Object.keys((await bundle(name)).metafile?.inputs ?? {});
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

  it('no function imports node:stream/web, which loads Node\'s web streams: @middy/core, its only importer, gets a class that answers its instanceof', async () => {
    expect(Object.keys(BUNDLE_ALIASES)).toEqual(['node:stream/web']);
    for (const name of [...OPERATION_IDS, 'authorizer' as const]) {
      const { outputFiles } = await bundle(name);
      expect([name, outputFiles.filter((file) => file.path.endsWith('.mjs')).some((file) => file.text.includes('node:stream/web'))]).toEqual([name, false]);
      // Without the alias: who imports it.
      const inputs = (await bundle(name, false)).metafile.inputs;
      const importers = Object.entries(inputs).filter(([, input]) => input.imports.some((imported) => imported.path === 'node:stream/web')).map(([path]) => path);
      expect([name, importers]).toEqual([name, operationOrAuthorizerImporters(name)]);
    }
    // middy asks nothing of the class but instanceof.
    const middy = readFileSync(join(root, 'node_modules', '@middy', 'core', 'index.js'), 'utf8');
    const code = middy.replace(/"(?:[^"\\\n]|\\.)*"/g, (literal) => (literal === '"node:stream/web"' ? literal : '""'));
    const uses = code.match(/[^\n]*\bReadableStream\b[^\n]*/g) ?? [];
    expect(uses.filter((line) => !/^import \{ ReadableStream \} from "node:stream\/web";$/.test(line) && !/instanceof ReadableStream\b/.test(line))).toEqual([]);
    expect(uses.length).toBeGreaterThan(1);
  }, 60_000);

  it('the class answers instanceof as Node\'s ReadableStream does', () => {
    expect(new WebReadableStream() instanceof ReadableStream).toBe(true);
    expect({} instanceof ReadableStream).toBe(false);
    expect(('text' as unknown) instanceof ReadableStream).toBe(false);
  });
});

/** The operations are built on middy; the authorizer is not. */
function operationOrAuthorizerImporters(name: keyof typeof FUNCTIONS): string[] {
  return name === 'authorizer' ? [] : ['node_modules/@middy/core/index.js'];
}
