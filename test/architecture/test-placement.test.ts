import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TESTS_ELSEWHERE, type TestedElsewhere } from '../tests-elsewhere';

/**
 * Where tests sit (docs/testing.md#where-tests-sit): test/unit/ mirrors the source tree, the unit
 * test of `<path>.ts` being `test/unit/<path>.test.ts`; every module of shared/ and functions/ has
 * that mirror or an entry in test/tests-elsewhere.ts naming the tests that cover it and why.
 */
const root = resolve(__dirname, '../..');

/** Every file under a folder of the project, recursively, from the root, with `/` between folders. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

/** The modules whose unit tests the rule asks for: every .ts file of shared/ and functions/, generated ones too. */
function modulesToTest(files: readonly string[]): string[] {
  return files.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
}

/** The module a file under test/unit/ mirrors, or undefined when its name is no mirror's. */
function mirroredModule(testFile: string): string | undefined {
  const match = /^test\/unit\/(.+)\.test\.ts$/.exec(testFile);
  return match === null ? undefined : `${match[1]}.ts`;
}

/** A module's unit test, where the rule puts it. */
function mirrorOf(module: string): string {
  return `test/unit/${module.replace(/\.ts$/, '.test.ts')}`;
}

/** The files of a tree, by path from its root: the project's, or one made up. */
interface Tree {
  /** Whether a file is there. */
  exists(path: string): boolean;
  /** A file's text. */
  read(path: string): string;
  /** Every file under a folder, recursively. */
  filesUnder(folder: string): string[];
}

/** The files the walk reads as code, and the endings it tries on a specifier. */
const CODE = /\.(?:ts|mts|mjs)$/;
const ENDINGS = ['', '.ts', '/index.ts', '.mjs', '.mts'];

/**
 * What a module names to load: the specifiers of its imports and re-exports (`import ... from`,
 * `import '...'`, `export ... from`, types too), of its `import()` of a string literal, and the
 * patterns of its `import.meta.glob` of literals (vite's, resolved when the file is transformed).
 * Comments and strings are not read; a computed `import()` is not followed.
 */
function loadsOf(path: string, text: string): { readonly specifiers: string[]; readonly globs: string[] } {
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    false,
    path.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const specifiers: string[] = [];
  const globs: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      specifiers.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword && first !== undefined && ts.isStringLiteralLike(first))
        specifiers.push(first.text);
      if (isImportMetaGlob(node.expression) && first !== undefined)
        for (const pattern of ts.isArrayLiteralExpression(first) ? first.elements : [first])
          if (ts.isStringLiteralLike(pattern)) globs.push(pattern.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, globs };
}

function isImportMetaGlob(expression: ts.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(expression) &&
    expression.name.text === 'glob' &&
    ts.isMetaProperty(expression.expression) &&
    expression.expression.keywordToken === ts.SyntaxKind.ImportKeyword &&
    expression.expression.name.text === 'meta'
  );
}

/** The file a relative specifier names, from the file that names it; undefined for a package's, or none. */
function resolvedSpecifier(from: string, specifier: string, tree: Tree): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = posix.join(posix.dirname(from), specifier);
  return ENDINGS.map((ending) => base + ending).find((path) => CODE.test(path) && tree.exists(path));
}

/** The files a relative glob of `*`s within names matches ('**', braces, classes and negations are not read). */
function globbedFiles(from: string, pattern: string, tree: Tree): string[] {
  if (!pattern.startsWith('./') && !pattern.startsWith('../')) return [];
  if (/\*\*|[{}[\]!]/.test(pattern)) return [];
  const full = posix.join(posix.dirname(from), pattern);
  const segments = full.split('/');
  const fixed = segments
    .slice(
      0,
      segments.findIndex((segment) => segment.includes('*')),
    )
    .join('/');
  if (fixed === full) return tree.exists(full) ? [full] : [];
  const matcher = new RegExp(
    `^${full
      .split('*')
      .map((part) => part.replace(/[.+?^$()|\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  return tree.filesUnder(fixed).filter((path) => CODE.test(path) && matcher.test(path));
}

/** Every file of the tree a test loads by the walk above, however deep, the test included. */
function reachedFrom(test: string, tree: Tree, loads = new Map<string, string[]>()): Set<string> {
  const reached = new Set([test]);
  const pending = [test];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    let next = loads.get(file);
    if (next === undefined) {
      const { specifiers, globs } = loadsOf(file, tree.read(file));
      next = [
        ...specifiers.flatMap((specifier) => resolvedSpecifier(file as string, specifier, tree) ?? []),
        ...globs.flatMap((pattern) => globbedFiles(file as string, pattern, tree)),
      ];
      loads.set(file, next);
    }
    for (const path of next)
      if (!reached.has(path)) {
        reached.add(path);
        pending.push(path);
      }
  }
  return reached;
}

/** What breaks the rule, each in one line; none when the tree keeps it. */
function placementProblems(
  unitFiles: readonly string[],
  modules: readonly string[],
  elsewhere: Readonly<Record<string, TestedElsewhere>>,
  tree: Tree,
): string[] {
  const exists = (path: string) => tree.exists(path);
  const loads = new Map<string, string[]>();
  const reached = new Map<string, Set<string>>();
  const reaches = (test: string, module: string) => {
    const files = reached.get(test) ?? reachedFrom(test, tree, loads);
    reached.set(test, files);
    return files.has(module);
  };
  const problems: string[] = [];
  for (const file of unitFiles) {
    const module = mirroredModule(file);
    if (module === undefined)
      problems.push(`${file}: not <module path>.test.ts; a test of no one module sits elsewhere`);
    else if (!exists(module)) problems.push(`${file}: mirrors ${module}, which does not exist`);
  }
  const mirrored = new Set(unitFiles);
  for (const module of modules)
    if (!mirrored.has(mirrorOf(module)) && !Object.hasOwn(elsewhere, module))
      problems.push(`${module}: neither ${mirrorOf(module)} nor an entry in test/tests-elsewhere.ts`);
  const known = new Set(modules);
  for (const [module, { tests, why, reachedAtRunTime = {} }] of Object.entries(elsewhere)) {
    const entry = `test/tests-elsewhere.ts: ${module}`;
    if (!known.has(module)) problems.push(`${entry} is no module of shared/ or functions/`);
    if (mirrored.has(mirrorOf(module))) problems.push(`${entry} has ${mirrorOf(module)}: remove its entry`);
    if (tests.length === 0) problems.push(`${entry} names no test`);
    if (why.trim() === '') problems.push(`${entry} says not why it has no unit test of its own`);
    for (const test of tests) {
      if (!/\.test\.ts$/.test(test) || !exists(test)) {
        problems.push(`${entry} names ${test}, which is no test file`);
        continue;
      }
      const atRunTime = Object.hasOwn(reachedAtRunTime, test);
      if (!known.has(module)) continue;
      if (reaches(test, module)) {
        if (atRunTime) problems.push(`${entry}: ${test} imports it, so it needs no reachedAtRunTime`);
      } else if (!atRunTime) problems.push(`${entry} names ${test}, which never imports it (nor do its imports)`);
    }
    for (const [test, how] of Object.entries(reachedAtRunTime)) {
      if (!tests.includes(test)) problems.push(`${entry}: its reachedAtRunTime has ${test}, which it does not name`);
      if (how.trim() === '') problems.push(`${entry}: its reachedAtRunTime says not how ${test} reaches it`);
    }
  }
  return problems;
}

/** The project's files. */
const project: Tree = {
  exists: (path) => existsSync(join(root, path)) && statSync(join(root, path)).isFile(),
  read: (path) => readFileSync(join(root, path), 'utf8'),
  filesUnder: (folder) => (existsSync(join(root, folder)) ? filesUnder(folder) : []),
};

/** A made-up tree: its files and their text. */
function madeUp(files: Readonly<Record<string, string>>): Tree {
  const paths = Object.keys(files).sort();
  return {
    exists: (path) => Object.hasOwn(files, path),
    read: (path) => files[path] as string,
    filesUnder: (folder) => paths.filter((path) => path.startsWith(`${folder}/`)),
  };
}

describe('where tests sit', () => {
  it('test/unit/ mirrors existing modules; every other module has an entry with a why and tests that reach it', () => {
    const modules = modulesToTest([...filesUnder('shared'), ...filesUnder('functions')]);
    expect(modules.length).toBeGreaterThan(100);
    expect(placementProblems(filesUnder('test/unit'), modules, TESTS_ELSEWHERE, project)).toEqual([]);
  });

  it('names each way to break the rule', () => {
    const modules = [
      'shared/a.ts',
      'shared/b.ts',
      'shared/c.ts',
      'functions/d/handler.ts',
      'shared/e.ts',
      'shared/f.ts',
    ];
    const tree = madeUp({
      ...Object.fromEntries(modules.map((module) => [module, ''])),
      'shared/c.ts': "export * from './e';\n",
      'test/unit/shared/a.test.ts': "import { a } from '../../../shared/a';\n",
      'test/http/c.test.ts': "import { c } from '../../shared/c';\nimport { a } from '../../shared/a';\n",
      // Names shared/f.ts in a comment and a computed import() only.
      'test/http/f.test.ts': "// import { f } from '../../shared/f';\nawait import('../../shared/' + 'f');\n",
      'test/http/served.test.ts': "import { serve } from '../support/server';\n",
      'test/support/server.ts': 'export const serve = (path: string) => import(path);\n',
    });
    const served = 'loaded by its path by test/support/server.ts';
    const problems = placementProblems(
      ['test/unit/shared/a.test.ts', 'test/unit/stray.test.ts', 'test/unit/shared/gone.test.ts', 'test/unit/helper.ts'],
      modules,
      {
        'shared/a.ts': { tests: ['test/http/c.test.ts'], why: 'w' },
        'shared/c.ts': { tests: ['test/http/c.test.ts', 'test/http/missing.test.ts'], why: 'w' },
        'shared/old.ts': { tests: [], why: 'w' },
        'functions/d/handler.ts': {
          tests: ['test/http/served.test.ts'],
          why: 'w',
          reachedAtRunTime: { 'test/http/served.test.ts': served },
        },
        'shared/e.ts': {
          tests: ['test/http/c.test.ts'],
          why: ' ',
          reachedAtRunTime: { 'test/http/c.test.ts': served, 'test/http/served.test.ts': '' },
        },
        'shared/f.ts': { tests: ['test/http/c.test.ts', 'test/http/f.test.ts'], why: 'w' },
      },
      tree,
    );
    expect(problems).toEqual([
      'test/unit/stray.test.ts: mirrors stray.ts, which does not exist',
      'test/unit/shared/gone.test.ts: mirrors shared/gone.ts, which does not exist',
      'test/unit/helper.ts: not <module path>.test.ts; a test of no one module sits elsewhere',
      'shared/b.ts: neither test/unit/shared/b.test.ts nor an entry in test/tests-elsewhere.ts',
      'test/tests-elsewhere.ts: shared/a.ts has test/unit/shared/a.test.ts: remove its entry',
      'test/tests-elsewhere.ts: shared/c.ts names test/http/missing.test.ts, which is no test file',
      'test/tests-elsewhere.ts: shared/old.ts is no module of shared/ or functions/',
      'test/tests-elsewhere.ts: shared/old.ts names no test',
      'test/tests-elsewhere.ts: shared/e.ts says not why it has no unit test of its own',
      'test/tests-elsewhere.ts: shared/e.ts: test/http/c.test.ts imports it, so it needs no reachedAtRunTime',
      'test/tests-elsewhere.ts: shared/e.ts: its reachedAtRunTime has test/http/served.test.ts, which it does not name',
      'test/tests-elsewhere.ts: shared/e.ts: its reachedAtRunTime says not how test/http/served.test.ts reaches it',
      'test/tests-elsewhere.ts: shared/f.ts names test/http/c.test.ts, which never imports it (nor do its imports)',
      'test/tests-elsewhere.ts: shared/f.ts names test/http/f.test.ts, which never imports it (nor do its imports)',
    ]);
  });

  // Each specifier is tried as it is, then with .ts, /index.ts, .mjs and .mts.
  it('walks imports, re-exports, literal import()s and import.meta.glob; not comments or computed paths', () => {
    const tree = madeUp({
      'test/x.test.ts': [
        "import type { A } from '../shared/a';",
        "import '../shared/b';",
        "export { c } from '../shared/c';",
        "const d = await import('../shared/d');",
        "const e = import.meta.glob(['../functions/*/e.generated.ts', '../shared/**/deep.ts']);",
        "const f = import.meta.glob('../shared/f/*.ts');",
        "// import { g } from '../shared/g';",
        "const h = '../shared/h';",
        'await import(h);',
        "import { z } from 'zod';",
      ].join('\n'),
      'shared/a.ts': "export * from './a-more';\n",
      'shared/a-more.mts': '',
      'shared/b/index.ts': "import { n } from './n.mjs';\n",
      'shared/b/n.mjs': "export { m } from '../m';\n",
      'shared/m.ts': '',
      'shared/c.ts': '',
      'shared/d.mjs': '',
      'functions/one/e.generated.ts': '',
      'functions/two/e.generated.ts': '',
      'functions/two/not-e.generated.ts': '',
      'shared/deeper/deep.ts': '',
      'shared/f/one.ts': '',
      'shared/f/two.json': '',
      'shared/g.ts': '',
      'shared/h.ts': '',
    });
    expect([...reachedFrom('test/x.test.ts', tree)].sort()).toEqual([
      'functions/one/e.generated.ts',
      'functions/two/e.generated.ts',
      'shared/a-more.mts',
      'shared/a.ts',
      'shared/b/index.ts',
      'shared/b/n.mjs',
      'shared/c.ts',
      'shared/d.mjs',
      'shared/f/one.ts',
      'shared/m.ts',
      'test/x.test.ts',
    ]);
  });

  it('leaves out declaration files and what is not TypeScript', () => {
    expect(modulesToTest(['shared/a.ts', 'shared/b.d.ts', 'shared/c.json', 'functions/d.generated.ts'])).toEqual([
      'shared/a.ts',
      'functions/d.generated.ts',
    ]);
  });
});
