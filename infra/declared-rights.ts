import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { ITEM_PARTITIONS } from '../shared/dynamodb/table-definition';
import type { DataAccess, FunctionDeclaration, SecretName } from '../functions/table';
import type { PetStoreFunction } from './functions';

/**
 * A function's rights, from its declaration (functions/table.ts) and nothing else: a statement per
 * declared DynamoDB right, scoped by the items' partition keys (`dynamodb:LeadingKeys`, all of the
 * request's keys being of the declared kinds) or to the index; GetSecretValue on each declared
 * secret alone. The local server refuses what these would refuse (local/dynamodb-rights.ts).
 */
export function dynamoDbStatements(rights: readonly DataAccess[], tableArn: string): PolicyStatement[] {
  return rights.map((right) =>
    'index' in right
      ? new PolicyStatement({
          actions: right.actions.map((action) => `dynamodb:${action}`),
          resources: [`${tableArn}/index/${right.index}`],
        })
      : new PolicyStatement({
          actions: right.actions.map((action) => `dynamodb:${action}`),
          resources: [tableArn],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': right.items.map((kind) => ITEM_PARTITIONS[kind]) },
          },
        }),
  );
}

/** The environment variable that carries a declared secret's ARN (shared/config.ts reads it). */
export const SECRET_ARN_VARIABLE: Record<SecretName, string> = { cursor: 'CURSOR_SECRET_ARN' };

export function grantDeclaredRights(
  target: PetStoreFunction,
  declaration: FunctionDeclaration,
  resources: { tableArn: string; secrets: Record<SecretName, ISecret> },
): void {
  for (const statement of dynamoDbStatements(declaration.dynamodb, resources.tableArn))
    target.fn.addToRolePolicy(statement);
  for (const name of declaration.secrets ?? []) {
    // GetSecretValue only (no DescribeSecret, no other secret): the current and previous versions.
    target.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [resources.secrets[name].secretArn],
      }),
    );
  }
}

/** What a function's environment holds because of its declaration: the table's name if it may touch it, its secrets' ARNs. */
export function declaredEnvironment(
  declaration: FunctionDeclaration,
  resources: { tableName: string; secrets: Record<SecretName, ISecret> },
): Record<string, string> {
  const environment: Record<string, string> = {};
  if (declaration.dynamodb.length > 0) environment.TABLE_NAME = resources.tableName;
  for (const name of declaration.secrets ?? [])
    environment[SECRET_ARN_VARIABLE[name]] = resources.secrets[name].secretArn;
  return environment;
}
