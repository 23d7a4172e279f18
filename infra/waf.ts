import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Stage as ApiStage } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { MAX_BODY_BYTES } from '../shared/http/body-limit';
import { EDGE_BODY_TOO_LARGE, EDGE_REFUSAL } from '../shared/http/gateway-responses';
import { EDGE_LIMITS } from '../shared/limits/edge-limits';
import type { Stage } from './stages';

/**
 * The per-address limits at the edge (shared/limits/edge-limits.ts, which the local server's
 * stand-in reads too): requests without an Authorization header never reach the authorizer, so
 * they are counted here; and a flood guard on every request. Requests with a bad token are the
 * authorizer's to count (per address, in DynamoDB, exactly). Then the body's size: a body larger
 * than any route accepts (shared/http/body-limit.ts) is refused before API Gateway passes it on,
 * so no function reads it (nor meets Lambda's 6 MB limit on an invocation, under the gateway's 10 MiB).
 */
export const WAF_RULES = {
  unauthenticatedPerMinute: EDGE_LIMITS.withoutAuthorizationPerMinute,
  floodPerMinute: EDGE_LIMITS.anyRequestPerMinute,
  maxBodyBytes: MAX_BODY_BYTES,
} as const;

/** A WAF answer's headers; its Content-Type comes from the custom response body's own type. */
const fixedHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.entries(headers)
    .filter(([name]) => name !== 'Content-Type')
    .map(([name, value]) => ({ name, value }));

const blockWith429 = {
  block: {
    customResponse: {
      responseCode: EDGE_REFUSAL.status,
      customResponseBodyKey: 'rateLimited',
      // Content-Type comes from the custom response body's own type.
      responseHeaders: [
        { name: 'Retry-After', value: String(EDGE_REFUSAL.retryAfterSeconds) },
        ...fixedHeaders(EDGE_REFUSAL.headers),
      ],
    },
  },
};

/**
 * What AWS WAF inspects of a body at API Gateway unless the web ACL pays for more: a body over it
 * is "oversize", and the rule below takes oversize as a match, so it refuses exactly the bodies
 * larger than MAX_BODY_BYTES (which is this inspection limit).
 */
const WAF_BODY_INSPECTION_BYTES = 16 * 1024;

/** The web ACL's CloudWatch metric names: WAF keys its metrics by name, so each carries the stage. */
export const wafMetricName = (stage: Stage, name: string) => `petstore-${stage}-${name}`;

export function addWebAcl(scope: Construct, apiStage: ApiStage, stage: Stage): CfnWebACL {
  // A limit above what WAF inspects would need the web ACL's paid body inspection (associationConfig).
  if (WAF_RULES.maxBodyBytes > WAF_BODY_INSPECTION_BYTES)
    throw new Error(
      `the body limit (${WAF_RULES.maxBodyBytes} bytes) is above what WAF inspects at API Gateway by default (${WAF_BODY_INSPECTION_BYTES})`,
    );
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: {
      cloudWatchMetricsEnabled: true,
      metricName: wafMetricName(stage, 'web-acl'),
      sampledRequestsEnabled: true,
    },
    customResponseBodies: {
      rateLimited: {
        contentType: 'APPLICATION_JSON',
        content: EDGE_REFUSAL.body,
      },
      bodyTooLarge: {
        contentType: 'APPLICATION_JSON',
        content: EDGE_BODY_TOO_LARGE.body,
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
                statement: {
                  sizeConstraintStatement: {
                    fieldToMatch: { singleHeader: { Name: 'authorization' } },
                    comparisonOperator: 'GT',
                    size: 0,
                    textTransformations: [{ priority: 0, type: 'NONE' }],
                  },
                },
              },
            },
          },
        },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: wafMetricName(stage, 'unauthenticated-per-address'),
          sampledRequestsEnabled: true,
        },
      },
      {
        name: 'flood-per-address',
        priority: 1,
        action: blockWith429,
        statement: {
          rateBasedStatement: { aggregateKeyType: 'IP', evaluationWindowSec: 60, limit: WAF_RULES.floodPerMinute },
        },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: wafMetricName(stage, 'flood-per-address'),
          sampledRequestsEnabled: true,
        },
      },
      {
        // After the rate rules, so that requests refused for their size are counted there too.
        name: 'body-too-large',
        priority: 2,
        action: {
          block: {
            customResponse: {
              responseCode: EDGE_BODY_TOO_LARGE.status,
              customResponseBodyKey: 'bodyTooLarge',
              responseHeaders: fixedHeaders(EDGE_BODY_TOO_LARGE.headers),
            },
          },
        },
        statement: {
          sizeConstraintStatement: {
            fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
            comparisonOperator: 'GT',
            size: WAF_RULES.maxBodyBytes,
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: wafMetricName(stage, 'body-too-large'),
          sampledRequestsEnabled: true,
        },
      },
    ],
  });
  new CfnWebACLAssociation(scope, 'WebAclAssociation', { resourceArn: apiStage.stageArn, webAclArn: acl.attrArn });
  return acl;
}
