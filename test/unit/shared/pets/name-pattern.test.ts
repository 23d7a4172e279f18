import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIDDEN_CLASS, NAME_PATTERNS, WHITE_SPACE_CLASS } from '../../../../shared/pets/name-pattern';
import { PetName } from '../../../../shared/pets/schema';
import { nameText, NEAR_WHITE_SPACE, WHITE_SPACE } from '../../../support/boundary-values';

/**
 * The pattern the interface description gives for a new pet's name decides exactly as the
 * service's step-by-step checks do. Read as JSON Schema reads it: ECMA-262 with the `u` flag.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
// The document's `allOf` of patterns: the name must match every one (each unanchored, as JSON Schema reads `pattern`).
// Compiled by the first test that needs them, not when the file loads: a pattern that does not
// compile fails those tests rather than the file's loading, which a mutation run counts as no failure.
let patterns: RegExp[] | undefined;
const pattern = {
  test: (name: string) => {
    patterns ??= NAME_PATTERNS.map((source) => new RegExp(source, 'u'));
    return patterns.every((each) => each.test(name));
  },
};
const accepts = (name: string) => PetName['~standard'].validate(name) as { issues?: unknown[] };

describe('the name pattern of the interface description', () => {
  it('is ECMA-262 with Unicode semantics, as JSON Schema reads it', () => {
    for (const source of NAME_PATTERNS) expect(() => new RegExp(source, 'u'), source).not.toThrow();
  });

  it('lists hidden characters of the Basic Multilingual Plane only: the service tests them one UTF-16 unit at a time (pet-name-rules.ts, no u flag)', () => {
    const hidden = new RegExp(`^[${HIDDEN_CLASS}]$`, 'u');
    const beyond: string[] = [];
    for (let code = 0x10000; code <= 0x10ffff; code += 1)
      if (hidden.test(String.fromCodePoint(code))) beyond.push(code.toString(16));
    expect(beyond).toEqual([]);
  });

  it('lists as white space exactly the code points that trim removes, all 1,114,112 of them checked', () => {
    const whiteSpace = new RegExp(`^[${WHITE_SPACE_CLASS}]$`, 'u');
    const disagreements: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += 1) {
      const character = String.fromCodePoint(code);
      if (whiteSpace.test(character) !== (character.trim() === '')) disagreements.push(code.toString(16));
    }
    expect(disagreements).toEqual([]);
    // And the arbitraries of the property tests use the same set, and their near misses are outside it.
    expect(WHITE_SPACE.every((character) => whiteSpace.test(character))).toBe(true);
    expect(NEAR_WHITE_SPACE.some((character) => whiteSpace.test(character))).toBe(false);
  });

  it.each([
    ['a name', 'Rex', true],
    ['100 characters', 'x'.repeat(100), true],
    ['100 characters with white space around them (finding 1)', ` \u3000${'x'.repeat(100)}\n\ufeff`, true],
    ['101 characters', 'x'.repeat(101), false],
    ['100 emoji: code points, not UTF-16 units', '🐶'.repeat(100), true],
    ['101 emoji', '🐶'.repeat(101), false],
    ['white space only (finding 2)', ' \t\u00a0\u2028 ', false],
    ['empty', '', false],
    ['a lone surrogate inside', 'a\ud800b', false],
    ['a lone surrogate in the padding', '\udc00 Rex', false],
    ['white space inside', 'Rex  the dog', true],
    ['a tab inside: a control character (issue 23, finding 4)', 'Rex\tthe dog', false],
    ['a NUL inside', 'Re\u0000x', false],
    ['a right-to-left override', 'cat\u202Egnp.exe', false],
    ['a bell and terminal escape codes', '\u0007\u001b[31mred', false],
    ['NEL (a C1 control)', '\u0085', false],
    ['DEL', 'Rex\u007f', false],
    ['a left-to-right mark', '\u200eRex', false],
    ['an Arabic letter mark', 'Rex\u061c', false],
    ['an isolate', '\u2066Rex\u2069', false],
    ['only zero width spaces: nothing visible', '\u200b\u200b', false],
    ['only format characters and white space', ' \u2060\u200d ', false],
    ['a zero width space before a letter', '\u200bRex', true],
    ['an emoji with joiners', '👨\u200d👩\u200d👧', true],
    ['combining marks', 'Re\u0301x e\u0308', true],
    ['letters of other scripts', 'Рекс 雷克斯 ركس', true],
  ])('decides %s as the service does', (_, name, valid) => {
    expect(pattern.test(name)).toBe(valid);
    expect(accepts(name).issues === undefined).toBe(valid);
  });

  it('refuses every control and bidirectional control the decisions list, inside a name and alone, and every format character alone; a format character beside a letter passes', () => {
    const hidden = [
      ...range(0x00, 0x1f),
      0x7f,
      ...range(0x80, 0x9f),
      ...range(0x202a, 0x202e),
      ...range(0x2066, 0x2069),
      0x200e,
      0x200f,
      0x061c,
    ];
    const format = [...range(0x200b, 0x200d), 0x2060, 0xfeff];
    const decisions: string[] = [];
    const expectDecision = (name: string, valid: boolean) => {
      if (pattern.test(name) !== valid || (accepts(name).issues === undefined) !== valid)
        decisions.push(`${JSON.stringify(name)} should be ${valid ? 'valid' : 'refused'}`);
    };
    for (const code of hidden) {
      const character = String.fromCodePoint(code);
      expectDecision(`Re${character}x`, false);
      // Alone: refused, but white space among the C0 controls (tab, line feed, ...) is trimmed: then nothing is left.
      expectDecision(character, false);
    }
    for (const code of format) {
      const character = String.fromCodePoint(code);
      expectDecision(character.repeat(3), false);
      expectDecision(`${character}Rex`, true);
    }
    expect(decisions).toEqual([]);
    expect(hidden).toHaveLength(32 + 1 + 32 + 5 + 4 + 3);
  });

  it('agrees with the service on every generated name (property, 20,000 names)', () => {
    process.stdout.write(`name pattern seed: ${SEED} (replay with FUZZ_SEED=${SEED})\n`);
    let valid = 0;
    fc.assert(
      fc.property(nameText, (name) => {
        const decision = pattern.test(name);
        if (decision) valid += 1;
        expect(decision, JSON.stringify(name)).toBe(accepts(name).issues === undefined);
      }),
      { seed: SEED, numRuns: 20_000 },
    );
    // Both answers are common, or the property proves little.
    expect(valid).toBeGreaterThan(2_000);
    expect(valid).toBeLessThan(18_000);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
