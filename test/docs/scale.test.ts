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

  it.each([
    // Issue 52: the cases the mix hid, each at its target at DynamoDB's rates.
    ['getPet, one pet', 10_000],
    ['listPets by a status 90 % of pets have, first pages', 10_000],
    [
      'listPets by a status 90 % of pets have, pages that follow a cursor (limit 20; petsByStatus and petsByStatusAgain in turn)',
      10_000,
    ],
    ['listPets, limit 100, after a cursor', 10_000],
    ['createPet with Idempotency-Key, 20 keys', 3_500],
  ])('the table has "%s" at %i a second or more, met', (name, target) => {
    const page = readFileSync(join(root, 'docs/scale-and-cost.md'), 'utf8');
    const shown = page.slice(page.indexOf(SCALE_START), page.indexOf(SCALE_END));
    const rows = shown.split('\n').filter((line) => line.startsWith(`| ${name}`));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(`| ≥ ${target.toLocaleString('en-US')}: met |`);
  });
});
