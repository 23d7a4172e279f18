import { readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ReadableStream } from '../../infra/bundle-shims/node-stream-web';
import { BUNDLE_ALIASES, esbuildOptionsFor } from '../../infra/bundling';
import { checksPathOf } from '../../codegen/generated-files';
import { FUNCTIONS, OPERATION_IDS, type OperationId } from '../../functions/table';

/**
 * What each function bundles, for its cold start (docs/performance.md#what-a-cold-start-spends):
 * zod costs a function about 3 ms of it (V8 compiles zod's code for each kind of schema, and the
 * schemas are built), so the functions check their requests with checks written from the zod
 * schemas (test/codegen/operation-request-checks.test.ts holds them to zod's answers) and bundle no zod; each
 * operation bundles the checks of its own request only.
 */
const root = join(import.meta.dirname, '..', '..');

/** The module holding each operation's request checks, generated beside its handler. */
const checksOf = (operation: OperationId): string => checksPathOf(operation);

async function bundle(name: keyof typeof FUNCTIONS, aliases = true) {
  const options = esbuildOptionsFor(join(root, FUNCTIONS[name].handler), join(root, 'bench', '.build', 'unused.mjs'));
  return build({ ...options, ...(aliases ? {} : { alias: {} }), write: false, metafile: true });
}

async function inputsOf(name: keyof typeof FUNCTIONS): Promise<string[]> {
  return Object.keys((await bundle(name)).metafile?.inputs ?? {});
}

describe('function bundles', () => {
  it('each operation bundles the checks of its own request only, and no function bundles zod', async () => {
    for (const operation of OPERATION_IDS) {
      const inputs = await inputsOf(operation);
      const others = OPERATION_IDS.filter((other) => other !== operation).map(checksOf);
      expect([operation, inputs.includes(checksOf(operation))]).toEqual([operation, true]);
      expect([operation, inputs.filter((input) => others.includes(input))]).toEqual([operation, []]);
    }
    for (const name of [...OPERATION_IDS, 'authorizer' as const, 'releaseCheck' as const]) {
      const inputs = await inputsOf(name);
      expect([name, inputs.some((input) => input.startsWith('shared/'))]).toEqual([name, true]);
      expect([name, inputs.filter((input) => input.includes('node_modules/zod/'))]).toEqual([name, []]);
      // Nor any declaration (its schemas, its bench cases): a function reads its route from the generated table.
      expect([
        name,
        inputs.filter((input) =>
          /^functions\/[^/]+\/operation\.ts$|^functions\/(table|operation-declaration)\.ts$|^bench\//.test(input),
        ),
      ]).toEqual([name, []]);
    }
  }, 60_000);

  it('no operation bundles the DynamoDB document client: the operations talk to DynamoDB in attribute values', async () => {
    // About 11 KB of bundle and 2 to 3 % of a cold start (docs/performance.md#what-a-cold-start-spends).
    const documentClient = (input: string) => /node_modules\/@aws-sdk\/(lib-dynamodb|util-dynamodb)\//.test(input);
    for (const operation of OPERATION_IDS) {
      const inputs = await inputsOf(operation);
      expect([operation, inputs.some((input) => input.includes('node_modules/@aws-sdk/client-dynamodb/'))]).toEqual([
        operation,
        true,
      ]);
      expect([operation, inputs.filter(documentClient)]).toEqual([operation, []]);
    }
  }, 60_000);

  it('each operation bundles the part of the pet repository it uses: the reads or the writes', async () => {
    // About 5 KB of the reads' bundles (the idempotency records, the id draws, the SDK's write commands);
    // the page merge and the caches are the reads'.
    const PART: Partial<Record<OperationId, string[]>> = {
      listPets: [
        'shared/pets/pet-reads.ts',
        'shared/pets/page-merge.ts',
        'shared/pets/first-page-cache.ts',
        'shared/pets/found-pet-cache.ts',
      ],
      getPet: [
        'shared/pets/pet-reads.ts',
        'shared/pets/page-merge.ts',
        'shared/pets/first-page-cache.ts',
        'shared/pets/found-pet-cache.ts',
      ],
      createPet: ['shared/pets/pet-writes.ts', 'shared/dynamodb/last-attempt.ts'],
    };
    const parts = [
      'shared/pets/pet-reads.ts',
      'shared/pets/page-merge.ts',
      'shared/pets/first-page-cache.ts',
      'shared/pets/found-pet-cache.ts',
      'shared/pets/pet-writes.ts',
      'shared/dynamodb/last-attempt.ts',
      'shared/pets/repository.ts',
    ];
    for (const operation of OPERATION_IDS) {
      const inputs = await inputsOf(operation);
      const bundled = parts.filter((part) => inputs.includes(part));
      // Any operation: the reads or the writes, never both, never the two joined (repository.ts).
      expect([
        operation,
        bundled.includes('shared/pets/pet-reads.ts') && bundled.includes('shared/pets/pet-writes.ts'),
        bundled.includes('shared/pets/repository.ts'),
      ]).toEqual([operation, false, false]);
      const expected = PART[operation]; // in the order of `parts`
      if (expected !== undefined) expect([operation, bundled]).toEqual([operation, expected]);
    }
  }, 60_000);

  it("no function imports node:stream/web, which loads Node's web streams: @middy/core, its only importer, gets a class that answers its instanceof", async () => {
    expect(Object.keys(BUNDLE_ALIASES)).toEqual(['node:stream/web']);
    for (const name of [...OPERATION_IDS, 'authorizer' as const]) {
      const { outputFiles } = await bundle(name);
      expect([
        name,
        outputFiles.filter((file) => file.path.endsWith('.mjs')).some((file) => file.text.includes('node:stream/web')),
      ]).toEqual([name, false]);
      // Without the alias: who imports it.
      const inputs = (await bundle(name, false)).metafile.inputs;
      const importers = Object.entries(inputs)
        .filter(([, input]) => input.imports.some((imported) => imported.path === 'node:stream/web'))
        .map(([path]) => path);
      expect([name, importers]).toEqual([name, operationOrAuthorizerImporters(name)]);
    }
    // middy asks nothing of the class but instanceof.
    const middy = readFileSync(join(root, 'node_modules', '@middy', 'core', 'index.js'), 'utf8');
    const code = middy.replace(/"(?:[^"\\\n]|\\.)*"/g, (literal) => (literal === '"node:stream/web"' ? literal : '""'));
    const uses = code.match(/[^\n]*\bReadableStream\b[^\n]*/g) ?? [];
    expect(
      uses.filter(
        (line) =>
          !/^import \{ ReadableStream \} from "node:stream\/web";$/.test(line) &&
          !/instanceof ReadableStream\b/.test(line),
      ),
    ).toEqual([]);
    expect(uses.length).toBeGreaterThan(1);
  }, 60_000);

  it("the class answers instanceof as Node's ReadableStream does", () => {
    expect(new WebReadableStream() instanceof ReadableStream).toBe(true);
    expect({} instanceof ReadableStream).toBe(false);
    expect(('text' as unknown) instanceof ReadableStream).toBe(false);
  });
});

/**
 * The operations are built on middy; the authorizer is not. The path as esbuild names it: from the
 * root to where node_modules really is (a git worktree's may be a link to another checkout's).
 */
function operationOrAuthorizerImporters(name: keyof typeof FUNCTIONS): string[] {
  return name === 'authorizer'
    ? []
    : [relative(root, realpathSync(join(root, 'node_modules', '@middy', 'core', 'index.js')))];
}
