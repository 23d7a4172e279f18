import { App, Validations, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ACCOUNT_SETUP_STACK_NAME, ApiGatewayAccountStack } from './api-gateway-account-stack';
import { ConfigurationError } from './configuration-error';
import { PetStoreStack } from './pet-store-stack';
import { STAGES, type Stage } from './stages';

/**
 * `cdk synth|deploy -c stage=staging` (the default) or `-c stage=prod`: one stack per stage;
 * `-c setup=account`: the account's API Gateway logging role, once per account and region, before
 * the first stage (docs/first-deploy.md). cdk-nag's AWS Solutions checks run on every synth; an
 * unacknowledged finding fails it. A missing or wrong setting throws a ConfigurationError.
 */
export function buildApp(app: App = new App()): { app: App; stack: Stack } {
  const setup = app.node.tryGetContext('setup');
  let stack: Stack;
  if (setup !== undefined) {
    if (setup !== 'account') throw new ConfigurationError(`Unknown setup "${String(setup)}": use -c setup=account`);
    stack = new ApiGatewayAccountStack(app, ACCOUNT_SETUP_STACK_NAME, {
      description: "Pet store: API Gateway's CloudWatch logging role, once per account and region",
    });
  } else {
    const stage = String(app.node.tryGetContext('stage') ?? 'staging');
    if (!(STAGES as readonly string[]).includes(stage)) {
      throw new ConfigurationError(`Unknown stage "${stage}": use -c stage=${STAGES.join(' or -c stage=')}`);
    }
    stack = new PetStoreStack(app, `PetStore-${stage}`, {
      stage: stage as Stage,
      description: `Pet store API, ${stage} stage`,
    });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/** Run by the CDK CLI (cdk.json's app): a missing or wrong setting is one line on stderr and exit code 1, as CDK reports its own. */
export function runApp(build: () => unknown = buildApp): void {
  try {
    build();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(error.message);
    // Now, before the app's synthesis at exit would build on a half-made stack.
    process.exit(1);
  }
}

if (process.argv[1]?.endsWith('infra/app.ts')) runApp();
