import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { build, transformSync, type Plugin } from 'esbuild';

/**
 * What `npm run mutate` (test/mutation/run.ts) needs for StrykerJS's incremental mode, one report per
 * group in test/mutation/incremental/ (docs/testing.md#mutation-testing). Stryker reuses a mutant's
 * result when its code and the tests that killed or covered it did not change; it reads only the
 * mutated modules and the test files, so it cannot see a change to anything else the run depends
 * on (test/support/, a shared module the group does not mutate, configuration, dependencies). Each
 * group's manifest holds a hash of every such file; a manifest that differs from the tree makes the
 * group run whole.
 */

/** Read by every run, whatever it imports (the group's entry of test/mutation/groups.json is held apart: a manifest names its own). */
export const CONFIGURATION = [
  'stryker.config.mjs',
  'vitest.config.ts',
  'vitest.mutate.config.ts',
  'tsconfig.json',
  'package-lock.json',
] as const;
export const GROUPS_FILE = 'test/mutation/groups.json';

/**
 * What a module loads or reads by a path no import names, which the bundle that finds the
 * dependencies cannot follow: each module's files, by path or `*` pattern from the project root,
 * added (and followed) whenever the module is among a group's dependencies. An `import()` of a
 * computed path in a module missing here fails the manifest (name what it loads here); a file read
 * (readFileSync) is not detected: list it here when a group's tests depend on it.
 */
export const UNSEEN_LOADS: Readonly<Record<string, readonly string[]>> = {
  // The declared handlers (functions/table.ts: functions/<name>/handler.ts).
  'local/server.ts': ['functions/*/handler.ts'],
  'test/integration/fault-suite.test.ts': ['functions/*/handler.ts'],
  // The operations' declarations, and the pages whose table of operations it writes.
  'codegen/generated-files.ts': [
    'functions/*/operation.ts',
    'docs/interface-and-decisions.md',
    'docs/api-behaviour.md',
  ],
  // The schemas' modules whose exports the checks may name.
  'codegen/exported-values.ts': ['shared/pets/*.ts', 'shared/validation/*.ts'],
  // The fixtures it hands the generator (by folder).
  'test/codegen/generator-parts.test.ts': ['test/codegen/fixtures/*/*.ts', 'test/codegen/fixtures/*/functions/*/*.ts'],
  // Every committed *.generated.ts, compared with what the generator writes.
  'test/codegen/generated-files.test.ts': [
    'functions/*.generated.ts',
    'functions/*/*.generated.ts',
    'shared/*/*.generated.ts',
    'client/*.generated.ts',
  ],
  // Imports the checks it generates, written under test-output/ as it runs: nothing of the tree.
  'test/codegen/request-checks.test.ts': [],
  // Runs a bundle it is given (the release drill's); nothing of the tree by itself.
  'local/function-runtime.mjs': [],
};

/**
 * The files a path names: itself, or for a `*` in one of its folders or its name (the generated
 * checks of every operation: functions/*\/request-checks.generated.ts), every match; Stryker
 * reads the same pattern.
 */
export function filesOf(pattern: string, root = '.'): string[] {
  if (!pattern.includes('*')) return [pattern];
  let paths = [''];
  for (const segment of pattern.split('/')) {
    const matcher = new RegExp(
      '^' +
        segment
          .split('*')
          .map((part) => part.replace(/[.+?^$()|[\]{}\\]/g, '\\$&'))
          .join('[^/]*') +
        '$',
    );
    paths = paths.flatMap((folder) =>
      (segment.includes('*')
        ? isFolder(join(root, folder))
          ? readdirSync(join(root, folder))
              .filter((name) => matcher.test(name))
              .sort()
          : []
        : [segment]
      ).map((name) => (folder ? `${folder}/${name}` : name)),
    );
  }
  return paths.filter((path) => existsSync(join(root, path)));
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

const CODE = /\.(?:[cm]?[jt]s|json)$/;

/** What a module's code loads that no import names: `import()` of a computed path (true), and the patterns of its `import.meta.glob` calls (vite's). */
function loadsIn(text: string, path: string): { readonly computedImport: boolean; readonly globs: string[] } {
  // Without comments and types: an `import(` in a comment or a type is no load.
  const code = transformSync(text, { loader: /\.[cm]?ts$/.test(path) ? 'ts' : 'js' }).code;
  // `#import(` and `.import(` are methods; an `import(` of a string is followed by the bundle.
  const computedImport = /(?<![\w$#.])import\s*\(\s*(?!["'])/.test(code);
  const globs = [...code.matchAll(/import\.meta\.glob\s*\(\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/g)].flatMap((match) =>
    [...(match[1] as string).matchAll(/["']([^"']+)["']/g)].map((each) => each[1] as string),
  );
  return { computedImport, globs };
}

/**
 * Every file of the project (by path from `root`, `/`-separated) that `entries` import, however
 * deep, themselves included, with what UNSEEN_LOADS says they load: an esbuild bundle's inputs,
 * packages left out (package-lock.json stands for them).
 */
export async function localDependencies(entries: readonly string[], root = '.'): Promise<string[]> {
  const found = new Set<string>();
  const unlisted = new Set<string>();
  const extra = new Set<string>();
  const toPath = (absolute: string) => relative(resolve(root), absolute).split('\\').join('/');
  const scan: Plugin = {
    name: 'loads-no-import-names',
    setup(bundle) {
      bundle.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
        const path = toPath(args.path);
        const { computedImport, globs } = loadsIn(readFileSync(args.path, 'utf8'), path);
        if (computedImport && !Object.hasOwn(UNSEEN_LOADS, path)) unlisted.add(path);
        for (const glob of globs) {
          if (glob.includes('**') || glob.includes('{'))
            throw new Error(
              `${path}: import.meta.glob('${glob}'): only * patterns are read (test/mutation/incremental-reports.ts)`,
            );
          if (glob.startsWith('!')) continue;
          extra.add(glob.startsWith('/') ? glob.slice(1) : posix.normalize(posix.join(posix.dirname(path), glob)));
        }
        return undefined;
      });
    },
  };
  let pending = [...new Set(entries)];
  const bundled = new Set(pending);
  while (pending.length > 0) {
    const result = await build({
      absWorkingDir: resolve(root),
      entryPoints: pending.filter((entry) => CODE.test(entry)),
      bundle: true,
      write: false,
      metafile: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      outdir: 'unwritten',
      logLevel: 'silent',
      plugins: [scan],
    });
    for (const input of Object.keys(result.metafile.inputs)) {
      // esbuild's own inputs (a `<define:…>`) and packages are no files of the project.
      if (input.includes('node_modules/') || !existsSync(join(root, input))) continue;
      found.add(input.split('\\').join('/'));
    }
    for (const path of pending) found.add(path);
    for (const path of [...found])
      for (const pattern of UNSEEN_LOADS[path] ?? []) for (const file of filesOf(pattern, root)) extra.add(file);
    // What those load in turn, once each: code is bundled next round, the rest (a page) only hashed.
    const next = [...extra]
      .flatMap((pattern) => filesOf(pattern, root))
      .filter((file) => existsSync(join(root, file)) && !bundled.has(file));
    for (const file of next) {
      bundled.add(file);
      found.add(file);
    }
    pending = next.filter((file) => CODE.test(file));
  }
  if (unlisted.size > 0)
    throw new Error(
      `${[...unlisted].join(', ')}: an import() of a computed path, which no manifest can follow: say what it loads in UNSEEN_LOADS (test/mutation/incremental-reports.ts)`,
    );
  return [...found].sort();
}

/** A file's content hash; `absent` for none. */
export function hashOf(path: string): string {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent';
}

export interface GroupEntry {
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
}

/** What a group's results depend on beyond what Stryker reads itself (test/mutation/incremental/<group>.manifest.json). */
export interface Manifest {
  /** The group's entry of test/mutation/groups.json. */
  readonly group: GroupEntry;
  /** By path from the project root, each file's SHA-256: configuration, and what the group's test files, mutated modules and vitest's set-up import (UNSEEN_LOADS too), but those test files and modules. */
  readonly files: Readonly<Record<string, string>>;
}

/** The manifest of a group as the tree at `root` is now. `setupFiles`: vitest's globalSetup and setupFiles, which no test file imports. */
export async function manifestOf(entry: GroupEntry, setupFiles: readonly string[], root = '.'): Promise<Manifest> {
  const mutated = entry.mutate.flatMap((pattern) => filesOf(pattern, root));
  // Stryker diffs these itself, mutant by mutant and test by test.
  const own = new Set([...mutated, ...entry.tests, GROUPS_FILE]);
  const configuration = CONFIGURATION.filter((path) => existsSync(join(root, path)));
  const dependencies = await localDependencies(
    [
      ...entry.tests,
      ...mutated,
      ...setupFiles,
      ...configuration.filter((path) => CODE.test(path) && !path.endsWith('.json')),
    ],
    root,
  );
  const files = [...new Set([...dependencies, ...CONFIGURATION])].filter((path) => !own.has(path)).sort();
  return {
    group: { mutate: [...entry.mutate], tests: [...entry.tests] },
    files: Object.fromEntries(files.map((path) => [path, hashOf(join(root, path))])),
  };
}

/** Why a group must run whole: what differs between its manifest as stored and as the tree is now; none: incremental. */
export function staleness(stored: Manifest | undefined, current: Manifest): string[] {
  if (stored === undefined) return ['no manifest'];
  const reasons: string[] = [];
  if (JSON.stringify(stored.group) !== JSON.stringify(current.group))
    reasons.push(`its entry of ${GROUPS_FILE} changed`);
  const paths = [...new Set([...Object.keys(stored.files), ...Object.keys(current.files)])].sort();
  for (const path of paths) {
    const before = stored.files[path];
    const now = current.files[path];
    if (before === now) continue;
    reasons.push(
      before === undefined
        ? `${path} is a new dependency`
        : now === undefined
          ? `${path} is no longer a dependency`
          : `${path} changed`,
    );
  }
  return reasons;
}

export function readManifest(path: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

interface ReportMutant {
  readonly status: string;
  readonly coveredBy?: readonly string[];
  readonly [field: string]: unknown;
}

/**
 * Stryker's incremental report without what its next run does not read (StrykerJS 9.6's
 * IncrementalDiffer: a mutant is known by its file, place, mutator and replacement, reused with
 * its status and tests completed when its code did not change and the tests that killed it, or
 * for one not killed those that covered it, are all still there), in one line: the options, the
 * versions and the project's path; per mutant whether it is static, and why it was killed (the
 * failed assertion, shown in the HTML report of the run that killed it; an ignored one keeps its
 * reason, which says whether --ignore-static ignored it); for a killed mutant the
 * tests that covered it (its killers count as covering ones). What is left is mostly the sources
 * of the mutated modules and test files, which the diff needs.
 */
export function compactReport(text: string): string {
  const { files, testFiles, schemaVersion, thresholds } = JSON.parse(text) as {
    files: Record<string, { mutants: ReportMutant[] }>;
    testFiles?: unknown;
    schemaVersion: string;
    thresholds: unknown;
  };
  for (const file of Object.values(files)) {
    file.mutants = file.mutants.map(
      ({ statusReason, static: _static, description: _description, duration: _duration, coveredBy, ...mutant }) => ({
        ...mutant,
        ...(mutant.status === 'Ignored' ? { statusReason } : {}),
        ...(mutant.status === 'Killed' ? {} : { coveredBy }),
      }),
    );
  }
  return JSON.stringify({ schemaVersion, thresholds, files, testFiles });
}

/** What run.ts reads of a group's incremental report. */
export interface StoredReport {
  readonly thresholds: { readonly break?: number | null };
  readonly files: Readonly<Record<string, { readonly source: string; readonly mutants: readonly ReportMutant[] }>>;
  readonly testFiles?: Readonly<Record<string, { readonly source?: string }>>;
}

/**
 * Whether Stryker would reuse every result of a group's report, so that it need not run at all
 * (its initial test run alone takes most of a minute): its manifest matches the tree (the caller's
 * check), and the report holds every module the group mutates and every test file it runs, each
 * as it is now, and no mutant that --ignore-static ignored (Stryker runs those again).
 */
export function unchangedSinceReport(report: StoredReport, entry: GroupEntry, root = '.'): boolean {
  const mutated = entry.mutate.flatMap((pattern) => filesOf(pattern, root));
  const same = (path: string, source: string | undefined) =>
    source !== undefined && existsSync(join(root, path)) && readFileSync(join(root, path), 'utf8') === source;
  const testFiles = report.testFiles ?? {};
  return (
    Object.keys(report.files).length === mutated.length &&
    mutated.every((path) => same(path, report.files[path]?.source)) &&
    Object.keys(testFiles).length === entry.tests.length &&
    entry.tests.every((path) => same(path, testFiles[path]?.source)) &&
    Object.values(report.files).every((file) =>
      file.mutants.every(
        (mutant) => mutant.status !== 'Ignored' || !String(mutant.statusReason).includes('ignoreStatic'),
      ),
    )
  );
}
