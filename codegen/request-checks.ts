import * as z from 'zod/mini';
import { UNNAMED_MESSAGE } from '../shared/validation/value-checks';
import type { ExportIndex, ExportedValue } from './exported-values';

/**
 * The request checks, written from the zod schemas: for each part of a request (query, path,
 * headers, body) a function that gives the answer zod gives (the value it becomes, or the same
 * issues in the same order: test/codegen/operation-request-checks.test.ts is the oracle), without zod, so that
 * a function builds no schema at its cold start (docs/performance.md#what-a-cold-start-spends).
 *
 * It reads zod's own definitions (`schema._zod.def`) and knows the kinds this interface uses:
 * objects (strict, or stripping unknown members: headers), strings with their checks (a pattern,
 * a length, a trim, a refinement), safe integers with a minimum and a maximum, enums, optional and
 * defaulted members, pipes and transforms. Anything else is refused with a message that names it
 * and where it is, rather than checked loosely. The issues' codes are kept where the request
 * validation reads them (`invalid_type`, `unrecognized_keys`); zod's message rule is followed: a
 * check's own message, else its schema's, else zod's "Invalid input" (zod/mini loads no locale).
 */

/** A part of a request to check, and where its schema is exported (for its type). */
export interface PartToCheck {
  /** The check's exported name in the generated code: `checkPetIdPath`. */
  readonly checkName: string;
  readonly schema: unknown;
  /** The schema's export, for `z.output<typeof …>`. */
  readonly schemaExport: ExportedValue;
  /** Headers: the schema takes only its declared members, whose names the validation reads (RequestHeadersSchema). */
  readonly headers: boolean;
}

interface Def {
  readonly type: string;
  // biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions, read member by member as the walk finds them
  readonly [key: string]: any;
}

interface ZodLike {
  readonly _zod: { readonly def: Def; readonly optin?: string; readonly optout?: string };
}

/** The member whose checks are being written: where it is, and the names its code uses. */
interface MemberCode {
  /** Where in the schema, for the generator's own errors (`query.limit`). */
  readonly at: string;
  /** The variable that holds the value, and what it becomes. */
  readonly value: string;
  /** The issues' path, as code. */
  readonly path: string;
  /** The variable that holds the issue count at the member's start (a pipe's stages read it). */
  readonly start: string;
}

/** The generated module's text for `parts`, importing what they name from `exports` (modules relative to `fromDir`). */
export class CheckWriter {
  readonly #imports = new Map<string, Set<string>>();
  readonly #typeImports = new Map<string, Set<string>>();
  readonly #constants: string[] = [];
  #counter = 0;

  constructor(
    private readonly exports: ExportIndex,
    /** From the generated module to the project root: `../..`. */
    private readonly toRoot: string,
  ) {}

  /** The exported check of one part. */
  part(part: PartToCheck): string {
    const schema = asSchema(part.schema, part.checkName);
    const def = schema._zod.def;
    if (def.type !== 'object')
      throw new Error(`${part.checkName}: a request part must be a zod object, not ${def.type}`);
    const strict = def.catchall?._zod.def.type === 'never';
    if (def.catchall !== undefined && !strict)
      throw new Error(`${part.checkName}: an object with a catchall other than never (strictObject) is not supported`);
    if (part.headers && strict)
      throw new Error(
        `${part.checkName}: headers are checked as a plain z.object (other headers are left out), not a strictObject`,
      );
    if (!part.headers && !strict)
      throw new Error(`${part.checkName}: a query, path or body must be a strictObject (an unknown member is a 400)`);
    const { module, name, access } = part.schemaExport;
    this.#typeImport(module, name);
    this.#import('shared/validation/request-schema', part.headers ? 'requestHeaders' : 'requestPart');
    this.#import('shared/validation/value-checks', 'checkObject');
    const keys = Object.keys(def.shape as Record<string, unknown>);
    const lines: string[] = [];
    lines.push('if (!checkObject(input, issues)) return undefined;');
    lines.push('const output: any = {};');
    for (const key of keys)
      lines.push(...this.#member(part.checkName, key, asSchema(def.shape[key], `${part.checkName}.${key}`)));
    if (strict) {
      this.#import('shared/validation/value-checks', 'checkNoOtherMembers');
      const members = `${part.checkName
        .replace(/^check/, '')
        .replace(/[a-z0-9](?=[A-Z])/g, '$&_')
        .toUpperCase()}_MEMBERS`;
      this.#constants.push(
        `const ${members}: ReadonlySet<string> = /* @__PURE__ */ new Set(${keys.length === 0 ? '' : JSON.stringify(keys)});`,
      );
      lines.push(`checkNoOtherMembers(input, ${members}, issues);`);
    }
    lines.push('return output;');
    const type = `z.output<typeof ${name}${access}>`;
    const opening = part.headers
      ? `requestHeaders<${type}>(${JSON.stringify(keys)}, (input, issues) => {`
      : `requestPart<${type}>((input, issues) => {`;
    return [
      `export const ${part.checkName} = /* @__PURE__ */ ${opening}`,
      ...lines.map((line) => `  ${line}`),
      '});',
    ].join('\n');
  }

  /** The module's constants (after every part was written): the members of strict objects. */
  constantLines(): string[] {
    return [...this.#constants];
  }

  /** The module's import lines (after every part was written). */
  importLines(): string[] {
    const lines = [`import type * as z from 'zod/mini';`];
    for (const [module, names] of [...this.#typeImports].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`import type { ${[...names].sort().join(', ')} } from '${this.toRoot}/${module}';`);
    for (const [module, names] of [...this.#imports].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`import { ${[...names].sort().join(', ')} } from '${this.toRoot}/${module}';`);
    return lines;
  }

  /** One member of a part: its value checked, then kept (or not) as zod's object keeps it. */
  #member(where: string, key: string, schema: ZodLike): string[] {
    const at = `${where}.${key}`;
    const value = this.#name('value');
    const start = this.#name('start');
    const read = `input[${JSON.stringify(key)}]`;
    const present = `${JSON.stringify(key)} in input`;
    const path = `[${JSON.stringify(key)}]`;
    const { optin, optout } = schema._zod;
    const checks = this.#value({ at, value, path, start }, schema);
    // The member's issue count at its start, for a pipe's stages only.
    const opening = [
      `  let ${value}: any = ${read};`,
      ...(checks.some((line) => new RegExp(`\\b${start}\\b`).test(line)) ? [`  const ${start} = issues.length;`] : []),
      ...indent(checks),
    ];
    if (optin === 'optional' && optout === 'optional') {
      // Left out when absent; kept, undefined included, when present.
      return [`if (${present}) {`, ...opening, `  output[${JSON.stringify(key)}] = ${value};`, '}'];
    }
    // Defaulted, or required: of the kinds written here, a required member's first step is a
    // string, an integer or an enum (a transform, an optional or a default would make it optional
    // in), which refuses undefined: absent, it has its issue already, and zod's own "nonoptional"
    // issue never comes.
    if ((optin === 'defaulted' || optin === undefined) && optout === undefined)
      return ['{', ...opening, `  output[${JSON.stringify(key)}] = ${value};`, '}'];
    throw new Error(
      `${at}: a member that is ${optin ?? 'required'} in and ${optout ?? 'required'} out is not supported`,
    );
  }

  /** Checks the value in variable `value` (issues at `path`), leaving what it becomes in the same variable. */
  #value(member: MemberCode, schema: ZodLike): string[] {
    const { at, value, path } = member;
    const def = schema._zod.def;
    switch (def.type) {
      case 'optional':
        return [`if (${value} !== undefined) {`, ...indent(this.#value(member, asSchema(def.innerType, at))), '}'];
      case 'default': {
        const fallback = def.defaultValue;
        if (fallback !== null && typeof fallback === 'object')
          throw new Error(`${at}: a default that is not a plain value is not supported`);
        return [
          `if (${value} === undefined) ${value} = ${JSON.stringify(fallback)};`,
          'else {',
          ...indent(this.#value(member, asSchema(def.innerType, at))),
          '}',
        ];
      }
      case 'pipe':
        return this.#stages(member, stagesOf(schema, at), undefined);
      case 'transform':
        return [`${value} = ${this.#callable(at, def.transform, 'transform')}(${value});`];
      case 'string':
        return this.#string(member, schema);
      case 'number':
        return this.#integer(member, schema);
      case 'enum': {
        const values = Object.values(def.entries as Record<string, unknown>);
        if (values.some((each) => typeof each !== 'string'))
          throw new Error(`${at}: an enum of other values than text (a numeric TypeScript enum) is not supported`);
        return [
          `if (!${JSON.stringify(values)}.includes(${value})) issues.push({ path: ${path}, message: ${messageOf(def)} });`,
        ];
      }
      default:
        throw new Error(
          `${at}: zod's ${def.type} is not among the kinds the generator writes checks for (codegen/request-checks.ts)`,
        );
    }
  }

  /**
   * A pipe's stages in turn: any issue stops the pipe (zod's handlePipeResult), so what follows a
   * stage that can raise one runs only when none was raised; a transform raises none. What a stage
   * makes certain of the value (digits read as a number) spares the next one a check no value
   * could fail.
   */
  #stages(member: MemberCode, stages: readonly ZodLike[], known: KnownNumber | undefined): string[] {
    const { start } = member;
    const [stage, ...rest] = stages as [ZodLike, ...ZodLike[]];
    const def = stage._zod.def;
    // Only a number known to be an integer of a range spares the integer's checks (digits still text do not).
    const lines =
      def.type === 'number'
        ? this.#integer(member, stage, known !== undefined && 'min' in known ? known : undefined)
        : this.#value(member, stage);
    if (rest.length === 0) return lines;
    const next =
      def.type === 'string'
        ? digitsOf(stage)
        : def.type === 'transform' && def.transform === Number && known !== undefined && 'digits' in known
          ? numberOfDigits(known.digits)
          : undefined;
    const following = this.#stages(member, rest, next);
    return def.type === 'transform'
      ? [...lines, ...following]
      : [...lines, `if (issues.length === ${start}) {`, ...indent(following), '}'];
  }

  #string({ at, value, path }: MemberCode, schema: ZodLike): string[] {
    const def = schema._zod.def;
    // A format schema (z.email(), z.uuid(), …) is a check of its own.
    if (def.check !== undefined)
      throw new Error(`${at}: the string format ${def.format} is not supported (only a pattern)`);
    const checks = (def.checks ?? []) as ZodLike[];
    const otherwise: string[] = [];
    const inside: string[] = [];
    for (const check of checks) {
      const checkDef = check._zod.def;
      const message = messageOf(checkDef, def);
      switch (checkDef.check) {
        case 'min_length':
          // zod checks a length on any value that has one, a string or not.
          otherwise.push(
            `if (${value} != null && ${value}.length !== undefined && !(${value}.length >= ${checkDef.minimum})) issues.push({ path: ${path}, message: ${message} });`,
          );
          inside.push(
            `if (!(${value}.length >= ${checkDef.minimum})) issues.push({ path: ${path}, message: ${message} });`,
          );
          break;
        case 'max_length':
          otherwise.push(
            `if (${value} != null && ${value}.length !== undefined && !(${value}.length <= ${checkDef.maximum})) issues.push({ path: ${path}, message: ${message} });`,
          );
          inside.push(
            `if (!(${value}.length <= ${checkDef.maximum})) issues.push({ path: ${path}, message: ${message} });`,
          );
          break;
        case 'string_format': {
          if (checkDef.format !== 'regex')
            throw new Error(`${at}: the string format ${checkDef.format} is not supported (only a pattern)`);
          const pattern = checkDef.pattern as RegExp;
          if (pattern.global || pattern.sticky)
            throw new Error(`${at}: a pattern with the g or y flag keeps state between tests`);
          inside.push(
            `if (!${this.#pattern(pattern)}.test(${value})) issues.push({ path: ${path}, message: ${message} });`,
          );
          break;
        }
        case 'overwrite':
          inside.push(`${value} = ${value}.${overwriteOf(at, checkDef.tx)}();`);
          break;
        case 'custom':
          inside.push(
            `if (!${this.#callable(at, checkDef.fn, 'refinement')}(${value})) issues.push({ path: ${path}, message: ${message} });`,
          );
          break;
        default:
          throw new Error(`${at}: the string check ${checkDef.check} is not supported`);
      }
    }
    return [
      `if (typeof ${value} !== 'string') {`,
      `  issues.push({ code: 'invalid_type', path: ${path}, message: ${messageOf(def)} });`,
      ...indent(otherwise),
      ...(inside.length === 0 ? ['}'] : ['} else {', ...indent(inside), '}']),
    ];
  }

  /** A safe integer (zod's int), with its minimum and maximum. */
  /** A safe integer (zod's int), with its minimum and maximum; `known`: an integer within these bounds whatever the request (digits read as a number). */
  #integer(
    { at, value, path }: MemberCode,
    schema: ZodLike,
    known?: { readonly min: number; readonly max: number },
  ): string[] {
    const def = schema._zod.def;
    if (def.format !== 'safeint')
      throw new Error(
        `${at}: only integers (z.int(): the safe range) are supported, not a number of format ${def.format ?? 'none'}`,
      );
    const message = messageOf(def);
    const range: string[] = [];
    // Outside the safe range zod says so, and still checks the minimum and the maximum.
    if (known === undefined || known.max > Number.MAX_SAFE_INTEGER)
      range.push(`if (!Number.isSafeInteger(${value})) issues.push({ path: ${path}, message: ${message} });`);
    for (const check of (def.checks ?? []) as ZodLike[]) {
      const checkDef = check._zod.def;
      const bound = checkDef.value as number;
      if (checkDef.check === 'greater_than') {
        if (known !== undefined && (checkDef.inclusive ? known.min >= bound : known.min > bound)) continue;
        range.push(
          `if (${value} ${checkDef.inclusive ? '<' : '<='} ${bound}) issues.push({ path: ${path}, message: ${messageOf(checkDef, def)} });`,
        );
      } else if (checkDef.check === 'less_than') {
        if (known !== undefined && (checkDef.inclusive ? known.max <= bound : known.max < bound)) continue;
        range.push(
          `if (${value} ${checkDef.inclusive ? '>' : '>='} ${bound}) issues.push({ path: ${path}, message: ${messageOf(checkDef, def)} });`,
        );
      } else throw new Error(`${at}: the number check ${checkDef.check} is not supported`);
    }
    if (known !== undefined) return range;
    return [
      `if (!Number.isInteger(${value})) issues.push({ code: 'invalid_type', path: ${path}, message: ${message} });`,
      ...(range.length === 0 ? [] : ['else {', ...indent(range), '}']),
    ];
  }

  /** A function the schema runs, named by its export (or a global such as Number). */
  // biome-ignore lint/complexity/noBannedTypes: any function a schema holds (a refinement, a transform, Number)
  #callable(at: string, fn: Function, what: string): string {
    if (fn === Number || fn === String) return fn.name;
    const found = this.exports.find(fn);
    if (found === undefined)
      throw new Error(
        `${at}: the ${what} ${fn.name || '(anonymous)'} is exported by no zod-free module of the domain; export it (or the list that holds it) so the checks can run the same function`,
      );
    this.#import(found.module, found.name);
    return valueAt(found);
  }

  #pattern(pattern: RegExp): string {
    const found = this.exports.find(pattern);
    if (found === undefined) return String(pattern);
    this.#import(found.module, found.name);
    return valueAt(found);
  }

  #import(module: string, name: string): void {
    const names = this.#imports.get(module) ?? new Set<string>();
    names.add(name);
    this.#imports.set(module, names);
  }

  #typeImport(module: string, name: string): void {
    const names = this.#typeImports.get(module) ?? new Set<string>();
    names.add(name);
    this.#typeImports.set(module, names);
  }

  #name(base: string): string {
    this.#counter += 1;
    return `${base}${this.#counter}`;
  }
}

/** What a stage makes certain of the value: text of 1 to `digits` decimal digits, the first not 0; or an integer within bounds. */
type KnownNumber = { readonly digits: number } | { readonly min: number; readonly max: number };

/** A pipe's stages, nested pipes laid flat. */
function stagesOf(schema: ZodLike, at: string): ZodLike[] {
  const def = schema._zod.def;
  return def.type === 'pipe'
    ? [...stagesOf(asSchema(def.in, at), at), ...stagesOf(asSchema(def.out, at), at)]
    : [schema];
}

/** A string whose pattern admits only a positive integer's canonical digits (`^[1-9][0-9]{0,n}$`): how many at most. */
function digitsOf(schema: ZodLike): KnownNumber | undefined {
  for (const check of (schema._zod.def.checks ?? []) as ZodLike[]) {
    const pattern = check._zod.def.pattern as RegExp | undefined;
    const digits =
      pattern === undefined || pattern.flags !== '' ? null : /^\^\[1-9\]\[0-9\]\{0,(\d+)\}\$$/.exec(pattern.source);
    if (digits) return { digits: Number(digits[1]) + 1 };
  }
  return undefined;
}

/** Such digits read as a number: an integer from 1 to 10^digits - 1. */
const numberOfDigits = (digits: number): KnownNumber => ({ min: 1, max: 10 ** digits - 1 });

/**
 * What each kind of definition may hold for the checks to be written: anything else (an object's
 * own checks, a refinement's path, a `when`, coercion, …) changes zod's answer in a way the
 * generator does not write, so it is refused rather than left out.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  object: ['type', 'shape', 'catchall'],
  // A format (z.email(), …) is a string schema and a check at once: #string names it.
  string: ['type', 'error', 'checks', 'check', 'format', 'pattern', 'abort', 'when'],
  number: ['type', 'check', 'abort', 'format', 'error', 'checks'],
  enum: ['type', 'entries', 'error'],
  optional: ['type', 'innerType'],
  default: ['type', 'innerType', 'defaultValue'],
  pipe: ['type', 'in', 'out'],
  transform: ['type', 'transform'],
  min_length: ['check', 'error', 'minimum', 'when'],
  max_length: ['check', 'error', 'maximum', 'when'],
  string_format: ['check', 'format', 'error', 'pattern'],
  overwrite: ['check', 'tx'],
  custom: ['type', 'check', 'fn', 'error'],
  greater_than: ['check', 'error', 'value', 'inclusive'],
  less_than: ['check', 'error', 'value', 'inclusive'],
};

/** zod's own `when` of a length check (any value with a length): another is the schema's author's. */
const LENGTH_WHEN = z.minLength(0)._zod.def.when;

/** Refuses a definition holding what the generator does not write. */
function onlyWhatIsWritten(at: string, def: Def): void {
  // A schema by its type; a check by its kind (a refinement is both: a check).
  const kind = def.type !== undefined && def.type !== 'custom' ? def.type : (def.check as string);
  const allowed = ALLOWED[kind];
  if (allowed === undefined) return;
  for (const key of Object.keys(def)) {
    const value = def[key];
    if (value === undefined) continue;
    if (!allowed.includes(key))
      throw new Error(
        `${at}: zod's ${kind} with \`${key}\` is not among what the generator writes (codegen/request-checks.ts)`,
      );
  }
  if (def.when !== undefined && def.when !== LENGTH_WHEN)
    throw new Error(`${at}: a check with a \`when\` of its own is not supported`);
  if (def.error !== undefined && (typeof def.error !== 'function' || def.error.length > 0))
    throw new Error(`${at}: an error given as a function of the issue is not supported (give its message as text)`);
}

function asSchema(value: unknown, at: string): ZodLike {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) throw new Error(`${at}: not a zod schema`);
  const schema = value as ZodLike;
  onlyWhatIsWritten(at, schema._zod.def);
  for (const check of (schema._zod.def.checks ?? []) as ZodLike[]) onlyWhatIsWritten(at, check._zod.def);
  return schema;
}

/** zod's message rule: the check's own, else its schema's, else "Invalid input". */
function messageOf(def: Def, owner?: Def): string {
  const error = def.error ?? owner?.error;
  if (error === undefined) return JSON.stringify(UNNAMED_MESSAGE);
  const message: unknown = error();
  if (typeof message !== 'string') throw new Error(`an error message that is not text: ${String(message)}`);
  return JSON.stringify(message);
}

/** The string method an overwrite check runs (z.trim(), z.toLowerCase(), z.toUpperCase()), told by what it does. */
function overwriteOf(at: string, tx: (text: string) => string): string {
  const probes = ['  Ab c\t', '\u00a0x\u2028', 'ÄÖ'];
  for (const method of ['trim', 'toLowerCase', 'toUpperCase'] as const)
    if (probes.every((probe) => tx(probe) === probe[method]())) return method;
  throw new Error(`${at}: an overwrite other than trim, toLowerCase or toUpperCase is not supported`);
}

/** An exported value as code: an element of a list is there (the generator found it). */
const valueAt = ({ name, access }: ExportedValue): string => `${name}${access.replace(/\]/g, ']!')}`;

const indent = (lines: readonly string[]): string[] => lines.map((line) => `  ${line}`);
