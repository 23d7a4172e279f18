import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScaleResult } from '../../bench/scale-cases';
import { SCALE_CASES } from '../../bench/scale-cases';
import { SCALE_END, SCALE_START, scaleTable } from '../../bench/scale-report';

/** docs/scale-and-cost.md's measured ceilings are the committed bench figures, for every scale case. */
const root = resolve(__dirname, '../..');

describe('the measured ceilings', () => {
  it('the docs show the table of bench/results.json, and it has a figure for every scale case', () => {
    const { scale } = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as { scale: ScaleResult };
    expect(scale.cases.map((figure) => figure.name)).toEqual(SCALE_CASES.map((scaleCase) => scaleCase.name));
    const page = readFileSync(join(root, 'docs/scale-and-cost.md'), 'utf8');
    const shown = page.slice(page.indexOf(SCALE_START) + SCALE_START.length, page.indexOf(SCALE_END)).trim();
    expect(page.indexOf(SCALE_START)).toBeGreaterThan(-1);
    expect(shown).toBe(scaleTable(scale).trim());
  });
});
