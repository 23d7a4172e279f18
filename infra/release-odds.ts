/**
 * The chance that a prod release's gate rolls a version back, from the canary and the gate's
 * settings (infra/releases.ts): the arithmetic docs/releases.md writes out, and the template test
 * holds the docs' figures to (test/infra/releases.test.ts).
 *
 * The model: the new version serves `percent` of the function's requests for `minutes`, and the
 * release prober's requests (`ProbeRate`: shared/release-check/canary-probes.ts), each
 * request failing on its own with the version's failure rate (binomial counts); the gate judges
 * aligned 5-minute periods; in a period it fires when the new version had at least
 * `minInvocations` invocations, `minFailures` failures, and more than `percent` % of them failed.
 * Each figure is a bound, on the side that flatters nothing:
 * - the chance of catching a bad version is a lower bound: only the whole periods the canary
 *   surely holds count (at the worst alignment, its last `METRICS_DELAY_MINUTES` left out, their
 *   metrics too late), each with the fewest invocations it may hold: its customers' rounded down,
 *   and the prober's least (60 judged, or its run fails and its gate rolls the release back) for 4
 *   of its 5 minutes (it sees a shift within a minute, and a schedule's minute may slip);
 * - the chance of rolling back a good version is an upper bound: every period the canary touches
 *   counts as a whole one, with the most invocations it may hold: its customers' rounded up, and
 *   the prober's most (65) for 6 minutes.
 * The failures that fire the gate rise in steps with the invocations (over 1 %), so a period's
 * chance is not monotone in them: each bound takes the least (catching) or the most (false alarm)
 * over every count from the fewest to the most.
 * (CloudWatch also judges a period still filling: that lies between the two.)
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

/** Which side of the truth a figure is on. */
export type Bound = 'catching' | 'falseAlarm';

/** How long after a minute ends its Lambda and embedded metrics can be relied on to be in CloudWatch. */
export const METRICS_DELAY_MINUTES = 2;

/** The gate's whole periods within the canary at the worst alignment (catching), or every period it touches (false alarms). */
export function judgedPeriods(canary: Canary, gate: FailureGate, bound: Bound = 'catching'): number {
  if (bound === 'falseAlarm') return Math.ceil(canary.minutes / gate.periodMinutes) + 1;
  return Math.max(0, Math.floor((canary.minutes - METRICS_DELAY_MINUTES) / gate.periodMinutes) - 1);
}

/** The release prober's requests judged a minute, to a shifting function: at least, and at most. */
export interface ProbeRate {
  readonly least: number;
  readonly most: number;
}

export const NO_PROBES: ProbeRate = { least: 0, most: 0 };

/** A function's traffic during a canary, and the gate that judges its new version. */
export interface GatedTraffic {
  readonly canary: Canary;
  readonly gate: FailureGate;
  /** Requests a minute to the function in all (both versions). */
  readonly requestsPerMinute: number;
  /** The release prober's requests to it (NO_PROBES unless said). */
  readonly probes?: ProbeRate;
}

/** The new version's invocations in one period at `requestsPerMinute` to the function in all (both versions), and the prober's: the fewest (catching) or the most (false alarm). */
export function invocationsPerPeriod(
  { canary, gate, requestsPerMinute, probes = NO_PROBES }: GatedTraffic,
  bound: Bound = 'catching',
): number {
  const exact = (requestsPerMinute * canary.percent * gate.periodMinutes) / 100;
  if (bound === 'catching') return Math.floor(exact) + probes.least * (gate.periodMinutes - 1);
  return Math.ceil(exact) + probes.most * (gate.periodMinutes + 1);
}

/** The chance one period fires: the least (catching) or the most (false alarm) over every count of invocations from the fewest to the most a period may hold. */
export function periodChance(traffic: GatedTraffic, failureRate: number, bound: Bound): number {
  const { gate } = traffic;
  const fewest = invocationsPerPeriod(traffic, 'catching');
  const most = invocationsPerPeriod(traffic, 'falseAlarm');
  let chance = bound === 'catching' ? 1 : 0;
  for (let invocations = fewest; invocations <= most; invocations += 1) {
    const fires = binomialAtLeast(invocations, failureRate, failuresToFire(gate, invocations));
    chance = bound === 'catching' ? Math.min(chance, fires) : Math.max(chance, fires);
  }
  return chance;
}

/** The fewest failures of `invocations` that fire the gate (Infinity: too few invocations to judge). */
export function failuresToFire(gate: FailureGate, invocations: number): number {
  if (invocations < gate.minInvocations) return Infinity;
  return Math.max(gate.minFailures, Math.floor((gate.percent * invocations) / 100) + 1);
}

/** P(X = k) for k = 0..n, X ~ Binomial(n, p). */
function binomialTerms(n: number, p: number): number[] {
  const terms = new Array<number>(n + 1).fill(0);
  if (p <= 0) terms[0] = 1;
  else if (p >= 1) terms[n] = 1;
  else {
    // In logarithms: (1 - p)^n underflows for large n.
    let log = n * Math.log1p(-p);
    const ratio = Math.log(p) - Math.log1p(-p);
    for (let k = 0; k <= n; k += 1) {
      terms[k] = Math.exp(log);
      log += Math.log(n - k) - Math.log(k + 1) + ratio;
    }
  }
  return terms;
}

/** P(X >= k) for X ~ Binomial(n, p): 1 - P(X < k), summing the k terms below (few: a gate fires on a small share). */
export function binomialAtLeast(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n || p <= 0) return 0;
  if (p >= 1) return 1;
  // In logarithms: (1 - p)^n underflows for large n.
  let log = n * Math.log1p(-p);
  const ratio = Math.log(p) - Math.log1p(-p);
  let below = 0;
  for (let i = 0; i < k; i += 1) {
    below += Math.exp(log);
    log += Math.log(n - i) - Math.log(i + 1) + ratio;
  }
  return Math.min(1, Math.max(0, 1 - below));
}

/** The chance the gate rolls back a version failing `failureRate` of its requests: a lower bound when catching, an upper one for a good version. */
export function rollbackChance(traffic: GatedTraffic, failureRate: number, bound: Bound = 'catching'): number {
  return 1 - (1 - periodChance(traffic, failureRate, bound)) ** judgedPeriods(traffic.canary, traffic.gate, bound);
}

/** The smallest failure rate (in steps of 0.1 %) surely rolled back with at least `chance`. */
export function smallestCaught(traffic: GatedTraffic, chance: number): number | undefined {
  for (let tenths = 1; tenths <= 1000; tenths += 1) {
    if (rollbackChance(traffic, tenths / 1000, 'catching') >= chance) return tenths / 1000;
  }
  return undefined;
}

/** The authorizer's gate (infra/releases.ts, REFUSAL_GATE). */
export interface RefusalGate {
  readonly factor: number;
  readonly minRefusals: number;
  readonly minOtherInvocations: number;
}

/**
 * The chance that a good new authorizer fires the refusal gate in one period: both versions refuse
 * the same share of their invocations; the new one had `invocations`, the old one the rest of the
 * canary's (75 % against 25 %: three times as many). It fires when the new one refused at least
 * `minRefusals` and, counts against counts, over `factor` times the old one's share.
 */
export function refusalFalseAlarmChance(canary: Canary, gate: RefusalGate, share: number, invocations: number): number {
  const others = Math.round((invocations * (100 - canary.percent)) / canary.percent);
  if (others < gate.minOtherInvocations) return 0;
  const mine = binomialTerms(invocations, share);
  const theirs = binomialTerms(others, share);
  // P(Y <= y) for the old version's refusals Y.
  const atMost = new Array<number>(others + 1);
  let sum = 0;
  for (let y = 0; y <= others; y += 1) atMost[y] = sum += theirs[y] as number;
  let chance = 0;
  for (let x = gate.minRefusals; x <= invocations; x += 1) {
    // x * others > factor * Y * invocations, i.e. Y < x * others / (factor * invocations).
    const below = (x * others) / (gate.factor * invocations);
    const most = Math.ceil(below) - 1;
    if (most >= 0) chance += (mine[x] as number) * (atMost[Math.min(most, others)] as number);
  }
  return Math.min(1, chance);
}

/** The worst of refusalFalseAlarmChance over the refused shares and the new version's invocations given. */
export function worstRefusalFalseAlarm(
  canary: Canary,
  gate: RefusalGate,
  shares: readonly number[],
  invocations: readonly number[],
): { chance: number; share: number; invocations: number } {
  let worst = { chance: 0, share: 0, invocations: 0 };
  for (const share of shares) {
    for (const n of invocations) {
      const chance = refusalFalseAlarmChance(canary, gate, share, n);
      if (chance > worst.chance) worst = { chance, share, invocations: n };
    }
  }
  return worst;
}
