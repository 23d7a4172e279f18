import { describe, expect, it } from 'vitest';
import { failuresOf, type ModuleScore } from '../../../mutation/verdict';

/** `npm run mutate`'s verdict (test/mutation/run.ts): what fails a run. */
const scored = (module: string, score: number): ModuleScore => ({
  module,
  group: 'g',
  score,
  killed: 0,
  survived: 0,
  noCoverage: 0,
  ignored: 0,
  breakScore: 90,
});

describe("the mutation run's verdict", () => {
  it('passes modules at or above the break score', () => {
    expect(failuresOf([scored('a.ts', 90), scored('b.ts', 100)], [])).toEqual([]);
  });

  it('fails a module under it', () => {
    expect(failuresOf([scored('a.ts', 89.9)], [])).toEqual(['a.ts: 89.9 %, under 90 %']);
  });

  it('fails a module without mutants (a NaN score), which a comparison alone would pass', () => {
    // biome-ignore lint/correctness/useIsNan: the comparison a NaN score passes is what this shows
    expect(NaN < 90).toBe(false);
    expect(failuresOf([scored('constants.ts', NaN), scored('b.ts', 95)], [])).toEqual([
      'constants.ts: no mutants (its logic inside a type assertion?), which fails as a score under 90 % would',
    ]);
  });

  it('under --ignore-static, passes a module whose every mutant was ignored (static): it has mutants, none judged; not otherwise (every one disabled by comments)', () => {
    expect(failuresOf([{ ...scored('constants.ts', NaN), ignored: 4 }], [], { ignoreStatic: true })).toEqual([]);
    expect(failuresOf([{ ...scored('constants.ts', NaN), ignored: 4 }], [])).toHaveLength(1);
    expect(failuresOf([scored('constants.ts', NaN)], [], { ignoreStatic: true })).toHaveLength(1);
  });

  it('fails a group whose run wrote no report', () => {
    expect(failuresOf([], ['pets'])).toEqual(['The run of group pets failed (see its output above).']);
  });
});
