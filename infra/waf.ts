import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { STANDARD_PLAN_LIMITS } from '../shared/limits/plans';

/**
 * In AWS an unauthenticated request is refused by API Gateway before any Lambda runs, so the
 * per-client-address limit of decisions.md lives here, at the edge:
 * - requests without an Authorization header: the Free per-minute limit per address (60 a minute);
 * - every request: a flood guard of 20,000 a minute per address, far above any plan, so one
 *   address cannot drown the API whatever keys it holds.
 * Refusals are 429 with our Error body and Retry-After.
 */
export const WAF_RULES = {
  unauthenticatedPerMinute: STANDARD_PLAN_LIMITS.free.perMinute,
  floodPerMinute: 20_000,
} as const;

const blockWith429 = {
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: 'rateLimited',
      responseHeaders: [
        { name: 'Retry-After', value: '60' },
        { name: 'Cache-Control', value: 'no-store' },
      ],
    },
  },
};

export function addWebAcl(scope: Construct, stage: Stage): CfnWebACL {
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'petstore-web-acl', sampledRequestsEnabled: true },
    customResponseBodies: {
      rateLimited: {
        contentType: 'APPLICATION_JSON',
        content: JSON.stringify({ code: 'rate_limited', message: 'Too many requests from this address; retry after the time in Retry-After.', status: 429 }),
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
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'petstore-unauthenticated-per-address', sampledRequestsEnabled: true },
      },
      {
        name: 'flood-per-address',
        priority: 1,
        action: blockWith429,
        statement: { rateBasedStatement: { aggregateKeyType: 'IP', evaluationWindowSec: 60, limit: WAF_RULES.floodPerMinute } },
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'petstore-flood-per-address', sampledRequestsEnabled: true },
      },
    ],
  });
  new CfnWebACLAssociation(scope, 'WebAclAssociation', { resourceArn: stage.stageArn, webAclArn: acl.attrArn });
  return acl;
}
