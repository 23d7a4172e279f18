import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { describe, expect, it } from 'vitest';
import suite, { OWN_MODULES, OWN_PROCESS, sharedModuleTests } from '../../vitest.config';
import operation, { OPERATION_TESTS } from '../../vitest.operation.config';

/**
 * The suite's projects (vitest.config.ts): each test file runs in exactly one, and the lists of
 * exceptions name files that exist.
 */
const root = resolve(__dirname, '../..');
const projectsOf = (config: typeof suite) => (config.test?.projects ?? []) as TestProjectInlineConfiguration[];
const byName = (config: typeof suite) =>
  Object.fromEntries(projectsOf(config).map((project) => [project.test?.name, project.test]));

describe("the suite's projects", () => {
  it('name only files that exist among their exceptions', () => {
    for (const path of [...Object.keys(OWN_MODULES), ...Object.keys(OWN_PROCESS)])
      expect(existsSync(join(root, path)), path).toBe(true);
  });

  it('run the files with shared modules in threads without isolation and without a table; the others isolated, each with its table, in threads or, where named, a process', () => {
    for (const config of [suite, operation]) {
      const projects = byName(config);
      expect(Object.keys(projects).sort()).toEqual(['isolated', 'own process', 'shared modules']);
      expect(projects['shared modules']).toMatchObject({ pool: 'threads', isolate: false });
      expect(projects['shared modules']?.setupFiles).toBeUndefined();
      expect(projects['shared modules']?.globalSetup).toBeUndefined();
      expect(projects.isolated).toMatchObject({
        pool: 'threads',
        setupFiles: ['test/support/table-per-file.ts'],
        globalSetup: ['test/support/global-setup.ts'],
      });
      expect(projects.isolated?.isolate).toBeUndefined(); // vitest's default: isolated
      expect(projects['own process']).toMatchObject({
        pool: 'forks',
        include: Object.keys(OWN_PROCESS),
        setupFiles: ['test/support/table-per-file.ts'],
      });
    }
  });

  it('leave no file to two projects: the isolated ones exclude the others', () => {
    const { isolated, 'shared modules': shared } = byName(suite);
    const shares = sharedModuleTests(['test/**/*.test.ts']);
    expect(shared?.include).toEqual(shares);
    expect(isolated?.exclude).toEqual(expect.arrayContaining([...shares, ...Object.keys(OWN_PROCESS)]));
    expect(shares.filter((path) => Object.hasOwn(OWN_MODULES, path) || Object.hasOwn(OWN_PROCESS, path))).toEqual([]);
    expect(shares.length).toBeGreaterThan(60);
    // The one command's shared files are the suite's, among its own.
    expect(byName(operation)['shared modules']?.include).toEqual(sharedModuleTests(OPERATION_TESTS));
  });
});
