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
 * Order, on a stage's first deploy with it: the key, then the mirror (its new version, with the
 * key's id), then the key into its plan, so that the mirror never copies it without knowing it is
 * the release key. The check cannot wait for that in the template (the aliases it checks come
 * after the API's methods, and those after the usage plans), so it may start before the key is in
 * its plan: the walk waits up to RELEASE_KEY_WAIT_MS (150 s) for the authorizer to allow the key,
 * time for CloudFormation to add it (the mirror's update, seconds) and for the mirror's next run
 * (once a minute) to copy it.
 */
export function addReleaseKey(scope: Construct, options: { readonly stageName: string; readonly plans: Readonly<Record<PlanName, UsagePlan>>; readonly mirror: PetStoreFunction; readonly check: PetStoreFunction }): CfnApiKey {
  const { stageName, plans, mirror, check } = options;
  const key = new CfnApiKey(scope, 'ReleaseKey', {
    name: `petstore-${stageName}-release-check`,
    description: `The release check's key (docs/release-check.md): its requests and pets are apart from every customer's. Keep it enabled and in the ${RELEASE_KEY_PLAN} plan; the stack manages it.`,
    enabled: true,
  });
  const inPlan = new CfnUsagePlanKey(scope, 'ReleaseKeyInPlan', { keyId: key.ref, keyType: 'API_KEY', usagePlanId: plans[RELEASE_KEY_PLAN].usagePlanId });
  mirror.fn.addEnvironment(RELEASE_API_KEY_ID, key.ref);
  inPlan.node.addDependency(mirror.live);
  check.fn.addEnvironment(RELEASE_API_KEY_ID, key.ref);
  const { partition, region } = Stack.of(scope);
  check.fn.addToRolePolicy(new PolicyStatement({ actions: ['apigateway:GET'], resources: [`arn:${partition}:apigateway:${region}::/apikeys/${key.ref}`] }));
  return key;
}
