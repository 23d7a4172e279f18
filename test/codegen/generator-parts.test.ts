import { join } from 'node:path';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { ExportIndex, indexExports } from '../../codegen/exported-values';
import {
  checksTexts,
  findOperations,
  operationsTable,
  pascal,
  registryText,
  routesText,
  TABLE_END,
  TABLE_START,
  withOperationsTable,
  type FoundOperation,
} from '../../codegen/generated-files';
import type { OperationDeclaration } from '../../shared/function-declaration';
import * as plain from './fixtures/shapes/plain';

/**
 * The generator's parts, each on its own (test/codegen/generated-files.test.ts holds their sum to
 * the committed files): where it finds operations and the values their checks name, and the texts
 * it writes from them.
 */
const fixtures = join(import.meta.dirname, 'fixtures');

const operation = (operationId: string, declaration: Partial<OperationDeclaration>): FoundOperation => ({
  operationId,
  declaration: declaration as OperationDeclaration,
});

describe('the index of exported values', () => {
  it("finds each export by its own name first, then what arrays and plain objects hold, never inside a class's instance nor a plain value", () => {
    const index = new ExportIndex();
    index.add([{ module: 'm', exports: plain }]);
    expect(index.find(plain.keep)).toEqual({ module: 'm', name: 'keep', access: '' });
    expect(index.find(plain.PATTERN)).toEqual({ module: 'm', name: 'PATTERN', access: '' });
    expect(index.find(plain.RULES[0])).toEqual({ module: 'm', name: 'RULES', access: '[0]' });
    expect(index.find((plain.RULES[0] as { holds: unknown }).holds)).toEqual({
      module: 'm',
      name: 'RULES',
      access: '[0].holds',
    });
    expect(index.find(plain.RULES[1])).toEqual({ module: 'm', name: 'RULES', access: '[1]' });
    expect(index.find(plain.TABLE.trim)).toEqual({ module: 'm', name: 'TABLE', access: '.trim' });
    expect(index.find(plain.HOLDER.hidden)).toBeUndefined();
    expect(index.find(5)).toBeUndefined();
    expect(index.find(null)).toBeUndefined();
  });

  it("keeps a value's first place: an export's own name before another export that holds it, the first module before the next", () => {
    const shared = () => true;
    const index = new ExportIndex();
    index.add([
      { module: 'first', exports: { LIST: [shared], OBJECT: { shared } } },
      { module: 'second', exports: { shared } },
    ]);
    expect(index.find(shared)).toEqual({ module: 'second', name: 'shared', access: '' });
    const again = new ExportIndex();
    again.add([
      { module: 'first', exports: { shared } },
      { module: 'second', exports: { shared } },
    ]);
    expect(again.find(shared)).toEqual({ module: 'first', name: 'shared', access: '' });
  });

  it('reads the modules of folders, the defining ones before re-exports, leaves generated ones unread, and tells those that import zod apart', async () => {
    const { zodFree, all } = await indexExports(fixtures, ['shapes']);
    expect(all.find(plain.keep)).toEqual({ module: 'shapes/plain', name: 'keep', access: '' });
    expect(zodFree.find(plain.PATTERN)).toEqual({ module: 'shapes/plain', name: 'PATTERN', access: '' });
    const zodMini = await import('./fixtures/shapes/zod-mini');
    const zodClassic = await import('./fixtures/shapes/zod-classic');
    expect(all.find(zodMini.usesZodMini)).toEqual({ module: 'shapes/zod-mini', name: 'usesZodMini', access: '' });
    expect(all.find(zodClassic.usesZod)).toEqual({ module: 'shapes/zod-classic', name: 'usesZod', access: '' });
    expect(zodFree.find(zodMini.usesZodMini)).toBeUndefined();
    expect(zodFree.find(zodClassic.usesZod)).toBeUndefined();
  });
});

describe('the operations found', () => {
  it('are the folders of functions/ with an operation.ts, in route order: path, then method', async () => {
    const found = await findOperations(join(fixtures, 'root'));
    expect(found.map(({ operationId }) => operationId)).toEqual([
      'listThings',
      'addThing',
      'putThing',
      'patchThing',
      'dropThing',
      'getThing',
    ]);
  });

  it("refuse a declaration not exported under its folder's name, and a folder without its handler or baseline", async () => {
    await expect(findOperations(join(fixtures, 'no-export'))).rejects.toThrow(
      'functions/oddOne/operation.ts exports no declaration named oddOne: write `export const oddOne = declareOperation({ ... })`',
    );
    await expect(findOperations(join(fixtures, 'no-baseline'))).rejects.toThrow(
      'functions/lonely/ has an operation.ts but no baseline.ts (docs/adding-an-operation.md)',
    );
    await expect(findOperations(join(fixtures, 'no-handler'))).rejects.toThrow(
      'functions/handless/ has an operation.ts but no handler.ts (docs/adding-an-operation.md)',
    );
  });
});

describe('the texts written', () => {
  const ops = [
    operation('listThings', {
      route: { method: 'GET', path: '/things' },
      success: { status: 200, body: z.string(), description: 'Things.' },
      errors: [401, 400],
    }),
    operation('dropThing', {
      route: { method: 'DELETE', path: '/things/{id}' },
      success: { status: 204, description: 'Gone.' },
      errors: [404, 400],
      deprecation: { deprecatedAt: new Date(0), sunsetAt: new Date(Date.UTC(2031, 0, 2)), successorPath: '/v1/x' },
    }),
  ];

  it('the registry, the route table and the table of operations', () => {
    expect(registryText(ops)).toContain(
      "import { listThings } from './listThings/operation';\nimport { dropThing } from './dropThing/operation';",
    );
    expect(registryText(ops)).toContain('export const OPERATION_DECLARATIONS = { listThings, dropThing };');
    expect(routesText(ops)).toContain('  dropThing: { method: \'DELETE\', path: "/things/{id}" },\n} as const;');
    expect(operationsTable(ops).split('\n')).toEqual([
      '| Operation | Method and path | Success | Other statuses it may answer |',
      '|---|---|---|---|',
      '| `listThings` | `GET /v1/things` | 200: Things. | 400, 401 |',
      '| `dropThing` (deprecated; 410 from 2031-01-02) | `DELETE /v1/things/{id}` | 204: Gone. | 400, 404 |',
    ]);
  });

  it("a page's table between its markers, the rest of the page as it was; a page without them is refused", () => {
    const page = `# Title\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nAfter.\n`;
    expect(withOperationsTable('p.md', page, ops)).toBe(
      `# Title\n\n${TABLE_START}\n${operationsTable(ops)}\n${TABLE_END}\n\nAfter.\n`,
    );
    const refused = `"${TABLE_START}" ... "${TABLE_END}" markers around its table of operations`;
    expect(() => withOperationsTable('p.md', 'no markers', ops)).toThrow(`p.md has no ${refused}`);
    expect(() => withOperationsTable('p.md', `${TABLE_START}\n`, ops)).toThrow(refused);
    expect(() => withOperationsTable('p.md', `${TABLE_END}\n${TABLE_START}\n`, ops)).toThrow(refused);
    expect(() => withOperationsTable('p.md', `${TABLE_END}\n`, ops)).toThrow(refused);
  });

  it('the checks: a part two operations share once, in the shared module; an operation with no part of its own imports no zod types', () => {
    const Shared = z.strictObject({ id: z.string() });
    const Own = z.strictObject({ name: z.string() });
    const NoQuery = z.strictObject({});
    const all = new ExportIndex();
    all.add([{ module: 'shared/pets/things', exports: { Shared, Own, NoQuery } }]);
    const twoOps = [
      operation('getThing', { request: { query: NoQuery, path: Shared } }),
      operation('dropThing', { request: { query: NoQuery, path: Shared } }),
      operation('addThing', { request: { query: NoQuery, body: Own } }),
    ];
    const texts = checksTexts(twoOps, new ExportIndex(), all);
    expect([...texts.keys()]).toEqual([
      'functions/getThing/request-checks.generated.ts',
      'functions/dropThing/request-checks.generated.ts',
      'functions/addThing/request-checks.generated.ts',
      'shared/validation/request-checks.generated.ts',
    ]);
    const getThing = texts.get('functions/getThing/request-checks.generated.ts') as string;
    expect(getThing).not.toContain("import type * as z from 'zod/mini';");
    expect(getThing).toContain(
      "import { checkNoQuery, checkShared } from '../../shared/validation/request-checks.generated';",
    );
    expect(getThing).toContain(
      "export const REQUEST_CHECKS = { operationId: 'getThing', query: checkNoQuery, path: checkShared } as const;",
    );
    const addThing = texts.get('functions/addThing/request-checks.generated.ts') as string;
    expect(addThing).toContain("import type * as z from 'zod/mini';");
    expect(addThing).toContain(
      'const OWN_MEMBERS: ReadonlySet<string> = /* @__PURE__ */ new Set(["name"]);\n\nexport const checkOwn = ',
    );
    expect(addThing).toContain("import { checkNoQuery } from '../../shared/validation/request-checks.generated';");
    const shared = texts.get('shared/validation/request-checks.generated.ts') as string;
    expect(shared.match(/export const check/g)).toHaveLength(2);
    expect(shared).toContain("import type { NoQuery, Shared } from '../../shared/pets/things';");
    expect(shared).toContain('const NO_QUERY_MEMBERS');
    // With nothing shared, an empty module.
    const alone = checksTexts([twoOps[2] as FoundOperation], new ExportIndex(), all).get(
      'shared/validation/request-checks.generated.ts',
    ) as string;
    expect(alone.split('\n').slice(2)).toEqual(['', 'export {};', '']);
  });

  it('a schema exported by no module is refused, naming the operation and the part', () => {
    expect(() =>
      checksTexts(
        [operation('getThing', { request: { query: z.strictObject({}) } })],
        new ExportIndex(),
        new ExportIndex(),
      ),
    ).toThrow(
      'functions/getThing/operation.ts: the query schema of getThing is exported by no module of shared/pets or shared/validation; export it there (its check is named after it)',
    );
  });

  it("a check is named after its schema's export: a constant's words joined, a member's name after its holder's", () => {
    expect(pascal('PetIdPath')).toBe('PetIdPath');
    expect(pascal('noQuery')).toBe('NoQuery');
    expect(pascal('CREATE_PET_REQUEST')).toBe('CreatePetRequest');
    expect(pascal('V2_PATH')).toBe('V2Path');
    const THING_REQUEST = { query: z.strictObject({}), headers: z.object({ 'X-A': z.optional(z.string()) }) };
    const all = new ExportIndex();
    all.add([{ module: 'shared/pets/things', exports: { THING_REQUEST } }]);
    const texts = checksTexts([operation('addThing', { request: THING_REQUEST })], new ExportIndex(), all);
    expect(texts.get('functions/addThing/request-checks.generated.ts')).toContain(
      'export const checkThingRequestHeaders = ',
    );
    expect(texts.get('functions/addThing/request-checks.generated.ts')).toContain(
      'query: checkThingRequestQuery, headers: checkThingRequestHeaders',
    );
  });
});
