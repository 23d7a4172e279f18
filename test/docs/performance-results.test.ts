import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsSectionOf, RESULTS_SECTION_END, RESULTS_SECTION_START, type Results } from '../../bench/results';

/** docs/performance.md's latest results are what `npm run bench` wrote into bench/results.json, never figures copied by hand. */
const root = resolve(__dirname, '../..');

describe('docs/performance.md', () => {
  it('shows the latest results exactly as bench/results.json holds them (and bench/results.md shows them)', () => {
    const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as Results;
    const page = readFileSync(join(root, 'docs/performance.md'), 'utf8');
    expect(page).toContain(RESULTS_SECTION_START);
    expect(page).toContain(RESULTS_SECTION_END);
    const shown = page.slice(
      page.indexOf(RESULTS_SECTION_START) + RESULTS_SECTION_START.length,
      page.indexOf(RESULTS_SECTION_END),
    );
    expect(shown.trim()).toBe(resultsSectionOf(results).trim());
    expect(readFileSync(join(root, 'bench/results.md'), 'utf8').replace(/^## /gm, '### ')).toContain(shown.trim());
  });
});
