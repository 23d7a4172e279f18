import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/create-table';
import { removeOutdirs, synth } from '../support/synth';

const template = (stage: 'staging' | 'prod'): Template => synth(stage).template;
afterAll(removeOutdirs);

describe('the table in the CDK stack', () => {
  it('has the same keys and indexes as the table the local start-up creates', () => {
    const local = createTableInput('any');
    const [table] = Object.values(template('staging').findResources('AWS::DynamoDB::GlobalTable')) as { Properties: Record<string, any> }[];
    const properties = table?.Properties ?? {};
    expect(properties.KeySchema).toEqual(local.KeySchema);
    expect([...properties.AttributeDefinitions].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName))).toEqual(
      [...(local.AttributeDefinitions ?? [])].sort((a, b) => (a.AttributeName ?? '').localeCompare(b.AttributeName ?? '')),
    );
    expect(properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('has the key index: sparse (its partition key an attribute only key items carry), projecting what a listing of the keys reads', () => {
    const [table] = Object.values(template('staging').findResources('AWS::DynamoDB::GlobalTable')) as { Properties: Record<string, any> }[];
    const indexes = table?.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: { ProjectionType: string; NonKeyAttributes: string[] } }[];
    expect(indexes.map((index) => index.IndexName)).toEqual(['byStatus', 'registeredKeys']);
    const keys = indexes.find((index) => index.IndexName === 'registeredKeys');
    expect(keys?.KeySchema).toEqual([
      { AttributeName: 'registry', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(keys?.Projection.ProjectionType).toBe('INCLUDE');
    expect([...(keys?.Projection.NonKeyAttributes ?? [])].sort()).toEqual(['apiKeyId', 'createdAt', 'limits', 'plan', 'syncedAt', 'usagePlanId']);
    expect(table?.Properties.AttributeDefinitions).toContainEqual({ AttributeName: 'registry', AttributeType: 'S' });
  });

  it('is on demand with point-in-time recovery; retained and protected in prod only', () => {
    const prod = template('prod');
    prod.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        Replicas: [Match.objectLike({ DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      }),
    });
    template('staging').hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
  });
});
