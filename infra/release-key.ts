import { Stack } from 'aws-cdk-lib';
import { CfnApiKey, CfnUsagePlanKey, type UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { RELEASE_KEY_PLAN } from '../shared/release-check/check-identity';
import type { PlanName } from '../shared/limits/plans';
import type { PetStoreFunction } from './functions';

/** The environment variable naming the release key's API Gateway id: the key mirror's and the check's. */
export const RELEASE_API_KEY_ID = 'RELEASE_API_KEY_ID';

/**
 * The stage's release key (docs/release-check.md): an API Gateway key the stack makes (API Gateway
 * draws its value; no template or log holds it), in the stage's usage plan of RELEASE_KEY_PLAN, so
 * that the key mirror copies it into the registry as any key, marked as the one key of the
 * releases' pet space because its id is the one the mirror is given. The check reads its value
 * from API Gateway when it runs (`apigateway:GET` on this key alone).
 *
 * Order, on a stage's first deploy with it: the key first (it depends on nothing); the key joins
 * its plan only once the mirror's new version (which knows the key's id) is live, so that no mirror
 * copies it as a customer's key. Both come late in the stack update: the usage plans depend on the
 * API's stage, which depends on the methods, which name the released aliases, and the mirror's
 * rights name the usage plans. So they come after the released aliases have moved, and so after the
 * check that guards them: on that first release the authorizer cannot know the key. The check
 * reads the key's creation time with its value, and while the key is new (NEW_RELEASE_KEY_MS, an
 * hour) takes the authorizer's `Unauthorized` for it as "not in the registry yet", noted in its log,
 * instead of a failure (shared/release-check/success-walk.ts). Every later release judges it.
 */
export function addReleaseKey(
  scope: Construct,
  options: {
    readonly stageName: string;
    readonly plans: Readonly<Record<PlanName, UsagePlan>>;
    readonly mirror: PetStoreFunction;
    readonly check: PetStoreFunction;
  },
): CfnApiKey {
  const { stageName, plans, mirror, check } = options;
  const key = new CfnApiKey(scope, 'ReleaseKey', {
    name: `petstore-${stageName}-release-check`,
    description: `The release check's key (docs/release-check.md): its requests and pets are apart from every customer's. Keep it enabled and in the ${RELEASE_KEY_PLAN} plan; the stack manages it.`,
    enabled: true,
  });
  const inPlan = new CfnUsagePlanKey(scope, 'ReleaseKeyInPlan', {
    keyId: key.ref,
    keyType: 'API_KEY',
    usagePlanId: plans[RELEASE_KEY_PLAN].usagePlanId,
  });
  mirror.fn.addEnvironment(RELEASE_API_KEY_ID, key.ref);
  inPlan.node.addDependency(mirror.live);
  check.fn.addEnvironment(RELEASE_API_KEY_ID, key.ref);
  const { partition, region } = Stack.of(scope);
  check.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['apigateway:GET'],
      resources: [`arn:${partition}:apigateway:${region}::/apikeys/${key.ref}`],
    }),
  );
  return key;
}
