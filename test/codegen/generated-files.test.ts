import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../codegen/generated-files';
import { releaseProbesFile } from '../../codegen/release-probes';

/**
 * What `npm run generate` writes from the operations' declarations is committed, and held equal
 * here: a declaration changed without regenerating fails, naming the file (the interface
 * description and the client's types have their own test: test/openapi/).
 */
const root = join(import.meta.dirname, '..', '..');

/** Every *.generated.ts of the project (outside node_modules). */
function generatedOnDisk(folder = root): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory())
      return entry.name.startsWith('.') ||
        ['node_modules', 'bench', 'reports', 'test-output', 'cdk.out'].includes(entry.name)
        ? []
        : generatedOnDisk(join(folder, entry.name));
    return entry.name.endsWith('.generated.ts') ? [relative(root, join(folder, entry.name))] : [];
  });
}

describe('the generated files', () => {
  it('are what npm run generate writes from the declarations, and no other *.generated.ts is left over', async () => {
    const files = new Map([...(await generatedFiles(root)), await releaseProbesFile()]);
    // The pages with a table of operations are among them.
    expect([...files.keys()]).toEqual(
      expect.arrayContaining([
        'docs/interface-and-decisions.md',
        'docs/api-behaviour.md',
        'functions/operations.generated.ts',
        'shared/http/operation-routes.generated.ts',
        'functions/releaseCheck/probes.generated.ts',
      ]),
    );
    for (const [path, text] of files)
      expect(
        readFileSync(join(root, path), 'utf8'),
        `${path} differs from what the declarations give: run npm run generate`,
      ).toBe(text);
    const stale = generatedOnDisk().filter((path) => !files.has(path));
    expect(stale, 'generated files no declaration gives any longer (an operation removed?): delete them').toEqual([]);
  }, 60_000);
});
