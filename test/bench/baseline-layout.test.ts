import { afterEach, describe, expect, it, vi } from 'vitest';
import { PET_LAYOUTS, readsFormerLayout } from '../../shared/dynamodb/table-definition';

/**
 * The baseline twins read and write the pets' layouts as ours do at every step of a stage's move
 * to the sharded layout (PET_LAYOUT): the former layout read while upgrading and copying only
 * (not once copied), written while upgrading only.
 */
const saved = process.env.PET_LAYOUT;
afterEach(() => {
  if (saved === undefined) delete process.env.PET_LAYOUT;
  else process.env.PET_LAYOUT = saved;
  vi.resetModules();
});

describe('the baseline\'s pet layout', () => {
  it.each([...PET_LAYOUTS])('%s: reads and writes the former layout when ours does', async (layout) => {
    process.env.PET_LAYOUT = layout;
    vi.resetModules();
    const { READS_FORMER, WRITES_FORMER } = await import('../../bench/baseline/common');
    expect([READS_FORMER, WRITES_FORMER]).toEqual([readsFormerLayout(layout), layout === 'upgrading']);
  });
});
