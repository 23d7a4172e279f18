import { describe, expect, it } from 'vitest';
import { failuresOf, type ModuleScore } from '../mutation/verdict';

/** `npm run mutate`'s verdict (test/mutation/run.ts): what fails a run. */
const scored = (module: string, score: number): ModuleScore => ({ module, group: 'g', score, killed: 0, survived: 0, noCoverage: 0, ignored: 0, breakScore: 90 });

describe('the mutation run\'s verdict', () => {
  it('passes modules at or above the break score', () => {
    expect(failuresOf([scored('a.ts', 90), scored('b.ts', 100)], [])).toEqual([]);
  });

  it('fails a module under it', () => {
    expect(failuresOf([scored('a.ts', 89.9)], [])).toEqual(['a.ts: 89.9 %, under 90 %']);
  });

  it('fails a module without mutants (a NaN score), which a comparison alone would pass', () => {
    expect(NaN < 90).toBe(false);
    expect(failuresOf([scored('constants.ts', NaN), scored('b.ts', 95)], [])).toEqual(['constants.ts: no mutants (its logic inside a type assertion?), which fails as a score under 90 % would']);
  });

  it('fails a group whose run wrote no report', () => {
    expect(failuresOf([], ['pets'])).toEqual(['The run of group pets failed (see its output above).']);
  });
});
