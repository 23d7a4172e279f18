/**
 * Which roles of a synthesized template IAM would let make a DynamoDB request, read from every
 * statement of every policy in it (a role's default policy, its inline policies, any managed policy
 * of the template): the statements' actions (IAM wildcards, case-insensitive), their resources
 * (the table's ARN, or its index's, resolved from CloudFormation's intrinsics; `*` matches any) and
 * the one condition key the stack uses, `dynamodb:LeadingKeys` under `ForAllValues:StringLike`.
 * Any other condition is taken as met, and a Deny is not counted: the answer errs towards
 * "allowed", so that a test that finds a request allowed by no role holds whatever else a
 * statement says.
 */

/** A DynamoDB request: its action, and the table partition or the index (with its partition key's value) it touches. */
export type DynamoDbRequest = { readonly action: string } & (
  | { readonly partition: string }
  | { readonly index: string; readonly indexKey: string }
);

// biome-ignore lint/suspicious/noExplicitAny: a CloudFormation template's JSON, read by the properties each resource type has
type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
interface Statement {
  readonly Effect?: string;
  readonly Action?: string | string[];
  readonly NotAction?: string | string[];
  readonly Resource?: unknown;
  readonly NotResource?: unknown;
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

const ACCOUNT = { partition: 'aws', region: 'us-east-1', account: '111111111111' };
const TABLE_ARN = `arn:${ACCOUNT.partition}:dynamodb:${ACCOUNT.region}:${ACCOUNT.account}:table/pets`;

/** IAM's wildcards: `*` any text, `?` one character. */
const wildcard = (pattern: string, value: string, caseless = false): boolean =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
    caseless ? 'i' : '',
  ).test(value);

/** A resource as text: the table's ARN where it is named, the pseudo parameters of one account, `unresolved:` for anything else. */
function rendered(value: unknown, tableIds: ReadonlySet<string>): string {
  if (typeof value === 'string') return value;
  // biome-ignore lint/suspicious/noExplicitAny: an intrinsic function's JSON (Fn::Join, Fn::GetAtt, Ref...)
  const intrinsic = value as Record<string, any>;
  if (intrinsic['Fn::GetAtt'] !== undefined) {
    const [id, attribute] = intrinsic['Fn::GetAtt'] as [string, string];
    return tableIds.has(id) && attribute === 'Arn' ? TABLE_ARN : `unresolved:${id}.${attribute}`;
  }
  if (intrinsic.Ref !== undefined) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': ACCOUNT.partition,
      'AWS::Region': ACCOUNT.region,
      'AWS::AccountId': ACCOUNT.account,
    };
    return pseudo[intrinsic.Ref] ?? `unresolved:${intrinsic.Ref}`;
  }
  if (intrinsic['Fn::Join'] !== undefined) {
    const [separator, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => rendered(part, tableIds)).join(separator);
  }
  return `unresolved:${JSON.stringify(value)}`;
}

function statementAllows(statement: Statement, request: DynamoDbRequest, tableIds: ReadonlySet<string>): boolean {
  if (statement.Effect !== 'Allow') return false;
  const action = `dynamodb:${request.action}`;
  const actionMatches =
    statement.NotAction !== undefined
      ? ![statement.NotAction].flat().some((pattern) => wildcard(pattern, action, true))
      : [statement.Action ?? []].flat().some((pattern) => wildcard(pattern, action, true));
  if (!actionMatches) return false;
  const arn = 'partition' in request ? TABLE_ARN : `${TABLE_ARN}/index/${request.index}`;
  const resources = [statement.NotResource ?? statement.Resource ?? []]
    .flat()
    .map((resource) => rendered(resource, tableIds));
  const resourceMatches = resources.some((pattern) => wildcard(pattern, arn));
  if (statement.NotResource !== undefined ? resourceMatches : !resourceMatches) return false;
  const leadingKeys = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  if (leadingKeys === undefined) return true;
  const key = 'partition' in request ? request.partition : request.indexKey;
  return [leadingKeys].flat().some((pattern) => wildcard(pattern, key));
}

/** Each role's statements (its inline policies', and those of every policy of the template attached to it). */
function statementsByRole(resources: Resources): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  const add = (role: string, statements: Statement[]) => byRole.set(role, [...(byRole.get(role) ?? []), ...statements]);
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::IAM::Role') {
      add(
        id,
        (resource.Properties?.Policies ?? []).flatMap(
          (policy: { PolicyDocument: { Statement: Statement[] } }) => policy.PolicyDocument.Statement,
        ),
      );
    }
    if (resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy') {
      const roles = (resource.Properties?.Roles ?? []) as { Ref?: string }[];
      const statements = resource.Properties?.PolicyDocument?.Statement as Statement[];
      // A policy attached to no role of the template (or to one by name) is counted for every role: it errs towards "allowed".
      const attached =
        roles.every((role) => role.Ref !== undefined) && roles.length > 0
          ? roles.map((role) => role.Ref as string)
          : [`(policy ${id})`];
      for (const role of attached) add(role, statements);
    }
  }
  return byRole;
}

/** The roles of the template (by logical id) that may make the request, sorted. */
// biome-ignore lint/suspicious/noExplicitAny: a CloudFormation template's JSON
export function rolesAllowing(template: Record<string, any>, request: DynamoDbRequest): string[] {
  const resources = template.Resources as Resources;
  const tableIds = new Set(
    Object.entries(resources)
      .filter(([, resource]) => resource.Type.startsWith('AWS::DynamoDB::'))
      .map(([id]) => id),
  );
  return [...statementsByRole(resources)]
    .filter(([, statements]) => statements.some((statement) => statementAllows(statement, request, tableIds)))
    .map(([role]) => role)
    .sort();
}

/** The logical id of the role each function of the template runs with, by the function's logical id. */
// biome-ignore lint/suspicious/noExplicitAny: a CloudFormation template's JSON
export function functionRoles(template: Record<string, any>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(template.Resources as Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([id, resource]) => [
        id,
        (resource.Properties as { Role: { 'Fn::GetAtt': [string, string] } }).Role['Fn::GetAtt'][0],
      ]),
  );
}
