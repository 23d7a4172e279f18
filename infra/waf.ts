import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Stage as ApiStage } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { EDGE_REFUSAL } from '../shared/http/gateway-responses';
import { EDGE_LIMITS } from '../shared/limits/edge-limits';
import type { Stage } from './stages';

/**
 * The per-address limits at the edge (shared/limits/edge-limits.ts, which the local server's
 * stand-in reads too): requests without an Authorization header never reach the authorizer, so
 * they are counted here; and a flood guard on every request. Requests with a bad token are the
 * authorizer's to count (per address, in DynamoDB, exactly).
 */
export const WAF_RULES = {
  unauthenticatedPerMinute: EDGE_LIMITS.withoutAuthorizationPerMinute,
  floodPerMinute: EDGE_LIMITS.anyRequestPerMinute,
} as const;

const blockWith429 = {
  block: {
    customResponse: {
      responseCode: EDGE_REFUSAL.status,
      customResponseBodyKey: 'rateLimited',
      // Content-Type comes from the custom response body's own type.
      responseHeaders: [
        { name: 'Retry-After', value: String(EDGE_REFUSAL.retryAfterSeconds) },
        ...Object.entries(EDGE_REFUSAL.headers)
          .filter(([name]) => name !== 'Content-Type')
          .map(([name, value]) => ({ name, value })),
      ],
    },
  },
};

/** The web ACL's CloudWatch metric names: WAF keys its metrics by name, so each carries the stage. */
export const wafMetricName = (stage: Stage, name: string) => `petstore-${stage}-${name}`;

export function addWebAcl(scope: Construct, apiStage: ApiStage, stage: Stage): CfnWebACL {
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: wafMetricName(stage, 'web-acl'), sampledRequestsEnabled: true },
    customResponseBodies: {
      rateLimited: {
        contentType: 'APPLICATION_JSON',
        content: EDGE_REFUSAL.body,
      },
    },
    rules: [
      {
        name: 'unauthenticated-per-address',
        priority: 0,
        action: blockWith429,
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'IP',
            evaluationWindowSec: 60,
            limit: WAF_RULES.unauthenticatedPerMinute,
            scopeDownStatement: {
              notStatement: {
                statement: { sizeConstraintStatement: { fieldToMatch: { singleHeader: { Name: 'authorization' } }, comparisonOperator: 'GT', size: 0, textTransformations: [{ priority: 0, type: 'NONE' }] } },
              },
            },
          },
        },
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: wafMetricName(stage, 'unauthenticated-per-address'), sampledRequestsEnabled: true },
      },
      {
        name: 'flood-per-address',
        priority: 1,
        action: blockWith429,
        statement: { rateBasedStatement: { aggregateKeyType: 'IP', evaluationWindowSec: 60, limit: WAF_RULES.floodPerMinute } },
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: wafMetricName(stage, 'flood-per-address'), sampledRequestsEnabled: true },
      },
    ],
  });
  new CfnWebACLAssociation(scope, 'WebAclAssociation', { resourceArn: apiStage.stageArn, webAclArn: acl.attrArn });
  return acl;
}
