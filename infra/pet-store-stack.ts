import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { petStoreTable } from './table';

export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
}

/**
 * One stage of the pet store. So far: the table. The functions, the REST API, the authorizer
 * and the usage plans are declared here by the infrastructure issue.
 */
export class PetStoreStack extends Stack {
  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    super(scope, id, props);
    const table = petStoreTable(this, { retain: props.stage === 'prod' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}
