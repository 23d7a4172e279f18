import { defineConfig } from 'vitest/config';
import groups from './test/mutation/groups.json';
import { SUITE_SETTINGS } from './vitest.config';

type Group = keyof typeof groups;

/**
 * The tests StrykerJS runs against each mutant (stryker.config.mjs): the files that exercise the
 * modules it mutates (test/mutation/groups.json), those of one group when MUTATION_GROUP names it,
 * not the whole suite (the stack's synth, the bench's tests and most HTTP files never reach them).
 */
export function mutationTestFiles(group: string | undefined): string[] {
  if (group !== undefined && !Object.hasOwn(groups, group))
    throw new Error(`MUTATION_GROUP ${group} is not in test/mutation/groups.json`);
  const selected = group === undefined ? Object.values(groups) : [groups[group as Group]];
  return [...new Set(selected.flatMap((each) => each.tests))];
}

// Every file isolated, as each mutant's run needs (its modules mutated afresh), with a table of its own.
export default defineConfig({
  test: {
    ...SUITE_SETTINGS,
    globalSetup: [...SUITE_SETTINGS.globalSetup],
    setupFiles: [...SUITE_SETTINGS.setupFiles],
    env: { ...SUITE_SETTINGS.env },
    include: mutationTestFiles(process.env.MUTATION_GROUP),
  },
});
