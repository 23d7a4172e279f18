import type { OperationBenchCases } from '../bench/bench-case';
import type { OperationDeclaration as DeclarationOf } from '../shared/function-declaration';

/**
 * An operation's declaration as functions/<operationId>/operation.ts writes it: the parts
 * shared/function-declaration.ts types (route, rights, schemas, answers, words), and its bench cases
 * in the bench's own type (bench/bench-case.ts). Types and one identity function: nothing here runs.
 */
export type OperationDeclaration = DeclarationOf<OperationBenchCases>;

/** An operation's declaration, its types kept (route, schemas) for what derives from it. */
export const declareOperation = <const Declaration extends OperationDeclaration>(
  declaration: Declaration,
): Declaration => declaration;
