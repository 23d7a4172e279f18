import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/create-table';
import { removeOutdirs, synth } from '../support/synth';

// Each stage synthesized once, for every test here (a synth takes seconds, more on a busy machine).
const templates = new Map<'staging' | 'prod', Template>();
beforeAll(() => {
  for (const stage of ['staging', 'prod'] as const) templates.set(stage, synth(stage).template);
});
const template = (stage: 'staging' | 'prod'): Template => templates.get(stage) as Template;
afterAll(removeOutdirs);

describe('the table in the CDK stack', () => {
  it('has the same keys and indexes as the table the local start-up creates', () => {
    const local = createTableInput('any');
    const [table] = Object.values(template('staging').findResources('AWS::DynamoDB::GlobalTable')) as {
      Properties: Record<string, any>;
    }[];
    const properties = table?.Properties ?? {};
    expect(properties.KeySchema).toEqual(local.KeySchema);
    expect([...properties.AttributeDefinitions].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName))).toEqual(
      [...(local.AttributeDefinitions ?? [])].sort((a, b) =>
        (a.AttributeName ?? '').localeCompare(b.AttributeName ?? ''),
      ),
    );
    expect(properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('has the indexes of one pets layout, which every stage has: no former status index (`byStatus`), and no setting of a layout in any function', () => {
    for (const stage of ['staging', 'prod'] as const) {
      const synthesized = template(stage);
      const [table] = Object.values(synthesized.findResources('AWS::DynamoDB::GlobalTable')) as {
        Properties: Record<string, any>;
      }[];
      expect(
        (table!.Properties.GlobalSecondaryIndexes as { IndexName: string }[]).map((index) => index.IndexName),
      ).toEqual(['petsByStatus', 'registeredKeys', 'petsById', 'petsByStatusAgain']);
      expect(
        (table!.Properties.AttributeDefinitions as { AttributeName: string }[]).map(
          (attribute) => attribute.AttributeName,
        ),
      ).not.toContain('status');
      const functions = Object.values(synthesized.findResources('AWS::Lambda::Function')) as {
        Properties: { Environment?: { Variables?: Record<string, unknown> } };
      }[];
      // The functions read PET_LAYOUT no more (shared/config.ts): none is given it.
      expect(functions.filter((fn) => fn.Properties.Environment?.Variables?.PET_LAYOUT !== undefined)).toEqual([]);
    }
  });

  it('has the status and listing indexes: sharded (`<status>#<id mod 8>`, `pets#<id mod 8>`), sorted by id, projecting what a page returns', () => {
    const [table] = Object.values(template('prod').findResources('AWS::DynamoDB::GlobalTable')) as {
      Properties: Record<string, any>;
    }[];
    const index = (
      table!.Properties.GlobalSecondaryIndexes as {
        IndexName: string;
        KeySchema: unknown;
        Projection: { NonKeyAttributes: string[] };
      }[]
    ).find((candidate) => candidate.IndexName === 'petsByStatus');
    expect(index?.KeySchema).toEqual([
      { AttributeName: 'statusShard', KeyType: 'HASH' },
      { AttributeName: 'id', KeyType: 'RANGE' },
    ]);
    expect(index?.Projection.NonKeyAttributes).toEqual(['name', 'categoryId']);
    // The same again: a second set of partitions for pages with a filter (issue 52).
    const again = (
      table!.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[]
    ).find((candidate) => candidate.IndexName === 'petsByStatusAgain');
    expect(again?.KeySchema).toEqual(index?.KeySchema);
    expect(again?.Projection).toEqual(index?.Projection);
    // The listing index: every pet again, in the table's 8 shards, a second set of partitions for pages without a filter.
    const list = (
      table!.Properties.GlobalSecondaryIndexes as {
        IndexName: string;
        KeySchema: unknown;
        Projection: { NonKeyAttributes: string[] };
      }[]
    ).find((candidate) => candidate.IndexName === 'petsById');
    expect(list?.KeySchema).toEqual([
      { AttributeName: 'listShard', KeyType: 'HASH' },
      { AttributeName: 'id', KeyType: 'RANGE' },
    ]);
    expect(list?.Projection.NonKeyAttributes).toEqual(['name', 'categoryId', 'statusShard']);
  });

  it('has the key index: sparse (its partition key an attribute only key items carry), projecting what a listing of the keys reads', () => {
    const [table] = Object.values(template('staging').findResources('AWS::DynamoDB::GlobalTable')) as {
      Properties: Record<string, any>;
    }[];
    const indexes = table!.Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      KeySchema: unknown;
      Projection: { ProjectionType: string; NonKeyAttributes: string[] };
    }[];
    expect(indexes.map((index) => index.IndexName)).toEqual([
      'petsByStatus',
      'registeredKeys',
      'petsById',
      'petsByStatusAgain',
    ]);
    const keys = indexes.find((index) => index.IndexName === 'registeredKeys');
    expect(keys?.KeySchema).toEqual([
      { AttributeName: 'registry', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(keys?.Projection.ProjectionType).toBe('INCLUDE');
    expect([...(keys?.Projection.NonKeyAttributes ?? [])].sort()).toEqual([
      'apiKeyId',
      'createdAt',
      'limits',
      'plan',
      'syncedAt',
      'usagePlanId',
    ]);
    expect(table?.Properties.AttributeDefinitions).toContainEqual({ AttributeName: 'registry', AttributeType: 'S' });
  });

  it('is on demand with point-in-time recovery; retained and protected in prod only', () => {
    const prod = template('prod');
    prod.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
    template('staging').hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
  });
});
