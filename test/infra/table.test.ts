import { App, Stack } from 'aws-cdk-lib';
import { Match, Template as Templates, type Template } from 'aws-cdk-lib/assertions';
import { petStoreTable } from '../../infra/table';
import { PET_LAYOUT_OF } from '../../infra/stages';
import { tableDefinitionFor } from '../../shared/dynamodb/table-definition';
import { OPERATION_IDS } from '../../functions/table';
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

  it('changes one index per step of an upgrade (DynamoDB adds or removes one per update): the status index, then the listing index, then the former status index goes', () => {
    const indexesIn = (layout: 'upgrading' | 'copying' | 'copied' | 'current') => {
      const stack = new Stack(new App(), `Layout-${layout}`);
      petStoreTable(stack, { retain: false, layout });
      const [table] = Object.values(Templates.fromStack(stack).findResources('AWS::DynamoDB::GlobalTable')) as { Properties: Record<string, any> }[];
      return (table?.Properties.GlobalSecondaryIndexes as { IndexName: string }[]).map((index) => index.IndexName);
    };
    // Before the change: byStatus and registeredKeys.
    expect(indexesIn('upgrading')).toEqual(['petsByStatus', 'registeredKeys', 'byStatus']);
    expect(indexesIn('copying')).toEqual(['petsByStatus', 'registeredKeys', 'petsById', 'byStatus']);
    // Its code reads the former index no more; the index goes a deploy later, when no code beside reads it.
    expect(indexesIn('copied')).toEqual(['petsByStatus', 'registeredKeys', 'petsById', 'byStatus']);
    expect(indexesIn('current')).toEqual(['petsByStatus', 'registeredKeys', 'petsById']);
    expect(createTableInput('any', tableDefinitionFor('upgrading')).GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['petsByStatus', 'registeredKeys', 'byStatus']);
    // Both stages of this repository were made by this version.
    expect(PET_LAYOUT_OF).toEqual({ staging: 'current', prod: 'current' });
    for (const stage of ['staging', 'prod'] as const) {
      const functions = Object.values(template(stage).findResources('AWS::Lambda::Function')) as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }[];
      // Every operation's function reads its stage's layout (shared/config.ts PET_LAYOUT).
      expect(functions.filter((fn) => fn.Properties.Environment?.Variables?.PET_LAYOUT === 'current')).toHaveLength(OPERATION_IDS.length);
    }
  });

  it('has the status and listing indexes: sharded (`<status>#<id mod 8>`, `pets#<id mod 8>`), sorted by id, projecting what a page returns', () => {
    const [table] = Object.values(template('prod').findResources('AWS::DynamoDB::GlobalTable')) as { Properties: Record<string, any> }[];
    const index = (table?.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: { NonKeyAttributes: string[] } }[]).find((candidate) => candidate.IndexName === 'petsByStatus');
    expect(index?.KeySchema).toEqual([
      { AttributeName: 'statusShard', KeyType: 'HASH' },
      { AttributeName: 'id', KeyType: 'RANGE' },
    ]);
    expect(index?.Projection.NonKeyAttributes).toEqual(['name', 'categoryId']);
    // The listing index: every pet again, in the table's 8 shards, a second set of partitions for pages without a filter.
    const list = (table?.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: { NonKeyAttributes: string[] } }[]).find((candidate) => candidate.IndexName === 'petsById');
    expect(list?.KeySchema).toEqual([
      { AttributeName: 'listShard', KeyType: 'HASH' },
      { AttributeName: 'id', KeyType: 'RANGE' },
    ]);
    expect(list?.Projection.NonKeyAttributes).toEqual(['name', 'categoryId', 'statusShard']);
  });

  it('has the key index: sparse (its partition key an attribute only key items carry), projecting what a listing of the keys reads', () => {
    const [table] = Object.values(template('staging').findResources('AWS::DynamoDB::GlobalTable')) as { Properties: Record<string, any> }[];
    const indexes = table?.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: { ProjectionType: string; NonKeyAttributes: string[] } }[];
    expect(indexes.map((index) => index.IndexName)).toEqual(['petsByStatus', 'registeredKeys', 'petsById']);
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
