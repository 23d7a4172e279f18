/**
 * The chance that a prod release's gate rolls a version back, from the canary and the gate's
 * settings (infra/releases.ts): the arithmetic docs/releases.md writes out, and the template test
 * holds the docs' table to (test/infra/releases.test.ts).
 *
 * The model, on the safe side:
 * - the new version serves `percent` of the function's requests for `minutes`, each request
 *   failing on its own with the version's failure rate (binomial counts);
 * - the gate judges aligned 5-minute periods, and only whole ones count: the canary may begin a
 *   minute after a period starts (4 minutes lost) and its last `METRICS_DELAY_MINUTES` arrive too
 *   late to stop it;
 * - in a period the gate fires when the new version had at least `minInvocations` invocations,
 *   `minFailures` failures, and more than `percent` % of them failed. (CloudWatch also judges the
 *   period still filling, which can only add chances to fire.)
 */

export interface Canary {
  readonly percent: number;
  readonly minutes: number;
}

export interface FailureGate {
  readonly periodMinutes: number;
  readonly percent: number;
  readonly minInvocations: number;
  readonly minFailures: number;
}

/** How long after a minute ends its Lambda and embedded metrics can be relied on to be in CloudWatch. */
export const METRICS_DELAY_MINUTES = 2;

/** The gate's whole periods within the canary, at the worst alignment. */
export function judgedPeriods(canary: Canary, gate: FailureGate): number {
  const usable = canary.minutes - METRICS_DELAY_MINUTES - (gate.periodMinutes - 1);
  return Math.max(0, Math.floor(usable / gate.periodMinutes));
}

/** The new version's invocations in one period at `requestsPerMinute` to the function in all. */
export function invocationsPerPeriod(canary: Canary, gate: FailureGate, requestsPerMinute: number): number {
  return Math.round((requestsPerMinute * canary.percent * gate.periodMinutes) / 100);
}

/** The fewest failures of `invocations` that fire the gate (Infinity: too few invocations to judge). */
export function failuresToFire(gate: FailureGate, invocations: number): number {
  if (invocations < gate.minInvocations) return Infinity;
  return Math.max(gate.minFailures, Math.floor((gate.percent * invocations) / 100) + 1);
}

/** P(X >= k) for X ~ Binomial(n, p). */
export function binomialAtLeast(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let below = 0;
  let term = (1 - p) ** n; // P(X = 0)
  for (let i = 0; i < k; i += 1) {
    below += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return Math.min(1, Math.max(0, 1 - below));
}

/** The chance the gate rolls back a version failing `failureRate` of its requests. */
export function rollbackChance(canary: Canary, gate: FailureGate, requestsPerMinute: number, failureRate: number): number {
  const invocations = invocationsPerPeriod(canary, gate, requestsPerMinute);
  const perPeriod = binomialAtLeast(invocations, failureRate, failuresToFire(gate, invocations));
  return 1 - (1 - perPeriod) ** judgedPeriods(canary, gate);
}

/** The smallest failure rate (in steps of 0.1 %) rolled back with at least `chance`. */
export function smallestCaught(canary: Canary, gate: FailureGate, requestsPerMinute: number, chance: number): number | undefined {
  for (let tenths = 1; tenths <= 1000; tenths += 1) {
    if (rollbackChance(canary, gate, requestsPerMinute, tenths / 1000) >= chance) return tenths / 1000;
  }
  return undefined;
}
