import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where a value the generated code needs is exported: a module of the project and how to reach
 * the value from one of its exports (`NAME_RULES[2].holds`). The generated checks name a
 * refinement, a transform or a pattern by its export, so that the rule is written once and the
 * checks run the very function the schema runs.
 */
export interface ExportedValue {
  /** From the project root, without the extension: `shared/pets/fields`. */
  readonly module: string;
  readonly name: string;
  /** After the export's name: `''`, `[2].holds`, `.headers`. */
  readonly access: string;
}

/** Finds values among a set of modules' exports, one level into arrays and objects. */
export class ExportIndex {
  readonly #found = new Map<unknown, ExportedValue>();

  /**
   * Indexes the exports of `modules`: every export by its own name first (a value exported under
   * two names keeps the first module's: give defining modules first), then what they hold.
   */
  add(modules: readonly { readonly module: string; readonly exports: Readonly<Record<string, unknown>> }[]): void {
    for (const { module, exports } of modules)
      for (const [name, value] of Object.entries(exports)) this.#record(value, { module, name, access: '' });
    for (const { module, exports } of modules) this.#addInside(module, exports);
  }

  #addInside(module: string, exports: Readonly<Record<string, unknown>>): void {
    for (const [name, value] of Object.entries(exports)) {
      if (Array.isArray(value))
        value.forEach((element, index) => {
          this.#inside(element, { module, name, access: `[${index}]` });
        });
      else if (isPlainObject(value))
        for (const [key, member] of Object.entries(value)) this.#record(member, { module, name, access: `.${key}` });
    }
  }

  find(value: unknown): ExportedValue | undefined {
    return this.#found.get(value);
  }

  #inside(element: unknown, at: ExportedValue): void {
    this.#record(element, at);
    if (isPlainObject(element))
      for (const [key, member] of Object.entries(element))
        this.#record(member, { ...at, access: `${at.access}.${key}` });
  }

  #record(value: unknown, at: ExportedValue): void {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function')
      if (!this.#found.has(value)) this.#found.set(value, at);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * The modules of `folders` (from `root`), the ones that define a name before the ones that only
 * re-export it (`export *`), with whether each imports zod: the checks may name values only from
 * modules that do not, or the function would bundle zod.
 */
export async function indexExports(
  root: string,
  folders: readonly string[],
): Promise<{ readonly zodFree: ExportIndex; readonly all: ExportIndex }> {
  const modules = folders.flatMap((folder) =>
    readdirSync(join(root, folder))
      // A generated module is left out: it may be stale while the generator runs.
      .filter((file) => file.endsWith('.ts') && !file.includes('.generated.'))
      .map((file) => join(root, folder, file)),
  );
  const sources = modules.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  // Defining modules first: a module of re-exports alone comes last.
  sources.sort((a, b) => Number(onlyReExports(a.text)) - Number(onlyReExports(b.text)) || a.file.localeCompare(b.file));
  const loaded = [];
  for (const { file, text } of sources) {
    const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    loaded.push({
      module: relative(root, file).replace(/\.ts$/, ''),
      exports,
      importsZod: /from 'zod(\/[^']*)?'/.test(text),
    });
  }
  const zodFree = new ExportIndex();
  zodFree.add(loaded.filter((each) => !each.importsZod));
  const all = new ExportIndex();
  all.add(loaded);
  return { zodFree, all };
}

const onlyReExports = (text: string): boolean => !/^export (const|function|class|let)\b/m.test(text);
