/** One module's result in a run of `npm run mutate` (test/mutation/run.ts). */
export interface ModuleScore<Group extends string = string> {
  readonly module: string;
  readonly group: Group;
  /** NaN when no mutant of it was tested: none at all, or every one ignored (`--ignore-static`) or failing to compile. */
  readonly score: number;
  readonly killed: number;
  readonly survived: number;
  readonly noCoverage: number;
  readonly ignored: number;
  /** The score under which the run fails (stryker.config.mjs's `thresholds.break`). */
  readonly breakScore: number;
}

/**
 * Why the run fails, one line each; none: it passes. A module under the break score fails, and so
 * does one without mutants: its score is NaN, which no comparison finds under the threshold, and
 * whatever logic it holds then sits where Stryker cannot change it (inside a type assertion:
 * docs/testing.md). So does a group whose run wrote no report.
 */
export function failuresOf(
  scores: readonly ModuleScore[],
  failedRuns: readonly string[],
  { ignoreStatic = false }: { readonly ignoreStatic?: boolean } = {},
): string[] {
  return [
    ...scores.flatMap((each) => {
      // Under --ignore-static, a module whose every mutant is static: nothing judged, nothing wrong either.
      if (Number.isNaN(each.score) && ignoreStatic && each.ignored > 0) return [];
      if (Number.isNaN(each.score))
        return [
          `${each.module}: no mutants (its logic inside a type assertion?), which fails as a score under ${each.breakScore} % would`,
        ];
      if (each.score < each.breakScore)
        return [`${each.module}: ${each.score.toFixed(1)} %, under ${each.breakScore} %`];
      return [];
    }),
    ...failedRuns.map((group) => `The run of group ${group} failed (see its output above).`),
  ];
}
