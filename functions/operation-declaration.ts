import type { OperationBenchCases } from '../bench/bench-case';
import type { OperationDeclaration as DeclarationOf } from '../shared/function-declaration';

/**
 * An operation's declaration as functions/<operationId>/operation.ts writes it: the parts
 * shared/function-declaration.ts types (route, rights, schemas, answers, words), and its bench cases
 * in the bench's own type (bench/bench-case.ts). Types and one identity function: nothing here runs.
 */
export type OperationDeclaration = DeclarationOf<OperationBenchCases>;

/**
 * The declaration as tsc holds it besides its type: each status its bench cases and its release
 * probes expect one it names, its success's or one of its errors (as bench/cases.ts and
 * shared/release-check/probes.ts hold them when they run). `declareOperation` takes a declaration
 * that is this, else asks for this (not inferred from), so that tsc names the status that is not.
 */
export type WithNamedStatuses<Declaration extends OperationDeclaration> = {
  readonly [Key in keyof Declaration]: Key extends 'bench'
    ? BenchExpecting<Declaration[Key], Declaration['success']['status'] | Declaration['errors'][number]>
    : Key extends 'releaseProbes'
      ? ProbesExpecting<Declaration[Key], Declaration['success']['status'] | Declaration['errors'][number]>
      : Declaration[Key];
};

/** A bench part whose cases each answer one of these statuses. */
type BenchExpecting<Bench, Status> = {
  readonly [Key in keyof Bench]: Key extends 'cases'
    ? { readonly [Case in keyof Bench[Key]]: WithStatus<Bench[Key][Case], Status> }
    : Bench[Key];
};

/** These probes (a tuple for a tuple), each expecting one of these statuses, or a refusal. */
type ProbesExpecting<Probes, Status> = {
  readonly [Probe in keyof Probes]: {
    readonly [Key in keyof Probes[Probe]]: Key extends 'expect'
      ? Probes[Probe][Key] extends object
        ? WithStatus<Probes[Probe][Key], Status>
        : Probes[Probe][Key]
      : Probes[Probe][Key];
  };
};

/** This object, its `status` one of these. */
type WithStatus<Value, Status> = { readonly [Key in keyof Value]: Key extends 'status' ? Status : Value[Key] };

/** An operation's declaration, its types kept (route, schemas) for what derives from it. */
export const declareOperation = <const Declaration extends OperationDeclaration>(
  declaration: Declaration extends WithNamedStatuses<Declaration>
    ? Declaration
    : NoInfer<WithNamedStatuses<Declaration>>,
): Declaration => declaration as Declaration;
