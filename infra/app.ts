import { App, Validations, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ACCOUNT_SETUP_STACK_NAME, ApiGatewayAccountStack } from './api-gateway-account-stack';
import { PetStoreStack } from './pet-store-stack';
import { STAGES, type Stage } from './stages';

/**
 * `cdk synth|deploy -c stage=staging` (the default) or `-c stage=prod`: one stack per stage;
 * `-c setup=account`: the account's API Gateway logging role, once per account and region, before
 * the first stage (docs/first-deploy.md). cdk-nag's AWS Solutions checks run on every synth; an
 * unacknowledged finding fails it.
 */
export function buildApp(app: App = new App()): { app: App; stack: Stack } {
  const setup = app.node.tryGetContext('setup');
  let stack: Stack;
  if (setup !== undefined) {
    if (setup !== 'account') throw new Error(`Unknown setup "${String(setup)}": use -c setup=account`);
    stack = new ApiGatewayAccountStack(app, ACCOUNT_SETUP_STACK_NAME, { description: 'Pet store: API Gateway\'s CloudWatch logging role, once per account and region' });
  } else {
    const stage = String(app.node.tryGetContext('stage') ?? 'staging');
    if (!(STAGES as readonly string[]).includes(stage)) {
      throw new Error(`Unknown stage "${stage}": use -c stage=${STAGES.join(' or -c stage=')}`);
    }
    stack = new PetStoreStack(app, `PetStore-${stage}`, { stage: stage as Stage, description: `Pet store API, ${stage} stage` });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

if (process.argv[1]?.endsWith('infra/app.ts')) buildApp();
