import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { FUNCTION_NODE_OPTIONS } from '../infra/bundling';
import { declaredEnvironment, SECRET_ARN_VARIABLE } from '../infra/declared-rights';
import { stageEnvironmentOf, type Stage } from '../infra/stages';
import { FUNCTIONS, type ReleasedFunction } from '../functions/table';
import { pointHandlersAt, type DynamoDbTarget } from './dynamodb-target';

/**
 * The environment a released function gets when deployed to prod (the stage CodeDeploy releases
 * gradually), for the release drill: what the stack sets (infra/pet-store-stack.ts: the
 * declaration's variables, and its stage's: infra/stages.ts, stageEnvironmentOf) and what Lambda
 * sets, with two local stand-ins, as npm start has them: DynamoDB Local for DynamoDB (its
 * endpoint and access key, for a function that has a table), and the cursor secret's value for
 * its Secrets Manager ARN.
 */
const STAGE: Stage = 'prod';

/** Never read: the drill replaces the variable that carries it by the secret's value. */
const NO_SECRET_ARN = {
  secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:release-drill',
} as unknown as ISecret;

export function releasedEnvironment(
  name: ReleasedFunction,
  local: { readonly target: DynamoDbTarget; readonly cursorSecret: string; readonly memoryMb: number },
): Record<string, string> {
  const declaration = FUNCTIONS[name];
  const environment: Record<string, string> = {
    // What Lambda sets (of what the code may read).
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: ':UTC',
    AWS_REGION: local.target.region,
    AWS_DEFAULT_REGION: local.target.region,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(local.memoryMb),
    // What the stack sets.
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    ...declaredEnvironment(declaration, { tableName: local.target.tableName, secrets: { cursor: NO_SECRET_ARN } }),
    ...stageEnvironmentOf(name, STAGE),
    // Lambda runs Node 22; the SDK's notice that its 2027 releases need it is noise on a local Node 20.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  // The stand-ins: no Secrets Manager here (npm start gives the value itself), DynamoDB Local for DynamoDB.
  if (SECRET_ARN_VARIABLE.cursor in environment) {
    delete environment[SECRET_ARN_VARIABLE.cursor];
    environment.CURSOR_SECRET = local.cursorSecret;
  }
  if (environment.TABLE_NAME !== undefined) pointHandlersAt(local.target, environment);
  return environment;
}
