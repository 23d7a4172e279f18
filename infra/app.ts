import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PetStoreStack, STAGES, type Stage } from './pet-store-stack';

/**
 * `cdk synth|deploy -c stage=staging` (the default) or `-c stage=prod`: one stack per stage.
 * cdk-nag's AWS Solutions checks run on every synth; an unacknowledged finding fails it.
 */
export function buildApp(app: App = new App()): { app: App; stack: PetStoreStack } {
  const stage = String(app.node.tryGetContext('stage') ?? 'staging');
  if (!(STAGES as readonly string[]).includes(stage)) {
    throw new Error(`Unknown stage "${stage}": use -c stage=${STAGES.join(' or -c stage=')}`);
  }
  const stack = new PetStoreStack(app, `PetStore-${stage}`, { stage: stage as Stage, description: `Pet store API, ${stage} stage` });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

if (process.argv[1]?.endsWith('infra/app.ts')) buildApp();
