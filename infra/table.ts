import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition, type KeyAttribute } from '../shared/dynamodb/table-definition';

/** The pets table, declared from the same definition the local start-up creates it from. */
export function petStoreTable(scope: Construct, options: { retain: boolean }): TableV2 {
  return new TableV2(scope, 'PetStoreTable', {
    partitionKey: toCdk(tableDefinition.partitionKey),
    sortKey: toCdk(tableDefinition.sortKey),
    globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: toCdk(index.partitionKey),
      sortKey: toCdk(index.sortKey),
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: [...index.projectedAttributes],
    })),
    timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    billing: Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: options.retain,
    removalPolicy: options.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

function toCdk({ name, type }: KeyAttribute): { name: string; type: AttributeType } {
  return { name, type: type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}
