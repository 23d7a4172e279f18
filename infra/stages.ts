import type { PetLayout } from '../shared/dynamodb/table-definition';
import { OPERATIONS, type FunctionName } from '../functions/table';
import { metricsNamespaceOf } from '../shared/http/request-metrics';

/** The deployed stages: one stack each, `PetStore-<stage>`, side by side in one account and region. */
export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Each stage's step in the move to the sharded pet layout (shared/dynamodb/table-definition.ts,
 * PetLayout): `current` for a stage made by this version. A stage deployed before it holds its pets
 * in the former layout and goes through `upgrading` and `copying` first, one deploy each, as
 * docs/upgrading-pets.md says: set its step here, deploy, and commit the change. A stage of pets in
 * the former layout deployed straight at `current` would serve none of them (and its template
 * would add one index and remove another in one update, which DynamoDB does one at a time): the
 * upgrade page's first command checks for that before the first deploy of this version.
 */
export const PET_LAYOUT_OF: Readonly<Record<Stage, PetLayout>> = { staging: 'current', prod: 'current' };

/**
 * Whether a stage still has keys in the former key registry's shared partition (`APIKEY`, from
 * before each key got a partition of its own: local/key-layout-upgrade.ts): only then may its
 * authorizer read that partition, for the previous version while a deploy replaces it. A stage
 * made by this version registered every key in its own partition: its authorizer gets no right on
 * the shared one.
 */
export const FORMER_KEYS_OF: Readonly<Record<Stage, boolean>> = { staging: false, prod: false };

/**
 * The stages whose alarms must reach someone: `cdk synth` and `cdk deploy` of such a stage fail
 * unless it is given an e-mail address or an existing SNS topic (infra/alarm-destination.ts).
 */
export const ALARM_DESTINATION_REQUIRED: Readonly<Record<Stage, boolean>> = { staging: false, prod: true };

/**
 * What a function's environment holds of its stage, beside its declaration's variables
 * (infra/declared-rights.ts): the operations their metrics namespace and pet layout, the
 * authorizer its metrics namespace (its refusals are a metric: shared/auth/refusal-metrics.ts).
 * The stack sets it, and the release drill (local/release-environment.ts) the same.
 */
export function stageEnvironmentOf(name: FunctionName, stage: Stage): Record<string, string> {
  if (name in OPERATIONS) return { METRICS_NAMESPACE: metricsNamespaceOf(stage), PET_LAYOUT: PET_LAYOUT_OF[stage] };
  if (name === 'authorizer') return { METRICS_NAMESPACE: metricsNamespaceOf(stage) };
  return {};
}
