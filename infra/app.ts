import { App } from 'aws-cdk-lib';
import { PetStoreStack, STAGES, type Stage } from './pet-store-stack';

/** `cdk synth|deploy -c stage=staging` (the default) or `-c stage=prod`. */
const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'staging');
if (!(STAGES as readonly string[]).includes(stage)) {
  throw new Error(`Unknown stage "${stage}": use -c stage=${STAGES.join(' or -c stage=')}`);
}
new PetStoreStack(app, `PetStore-${stage}`, { stage: stage as Stage });
