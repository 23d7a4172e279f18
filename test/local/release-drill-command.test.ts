import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReleasedFunction } from '../../functions/table';
import { PROCESS_TEST_TIMEOUT_MS, root, shellEnvironment, TSX_LOADER } from '../support/npm-start';
import { buildWith, goodBuild, removeBuilds } from '../support/release-builds';
import { PROBES, WALK_STEPS } from '../support/release-probes';

vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS, hookTimeout: PROCESS_TEST_TIMEOUT_MS });

/**
 * `npm run release-drill` as a user runs it: what it prints, its exit code, and that it leaves no
 * process behind (it starts a DynamoDB Local of its own and a process per function). Each probe
 * against the bundles is release-drill.test.ts's, which `npm run test:operation` runs; this file,
 * the command line around them, is left to `npm test` (vitest.operation.config.ts).
 */
let good: string;

beforeAll(async () => {
  good = await goodBuild();
});

afterAll(removeBuilds);

const nameOf = (functionName: ReleasedFunction) =>
  PROBES.find((probe) => probe.functionName === functionName)?.name as string;

describe('npm run release-drill', () => {
  it('prints each probe, exits 0 for a good build and 1 for a broken one, and leaves no process behind', async () => {
    const broken = await buildWith(good, 'getPet', "throw new Error('broken on load');\n");
    const [passed, failed] = await Promise.all([runDrill('--build', good), runDrill('--build', broken)]);
    expect([passed.code, passed.stderr]).toEqual([0, '']);
    expect(passed.stdout).toBe(
      [
        `Probing the bundles in ${good}, against DynamoDB Local on port ${portOf(passed.stdout)}:`,
        ...[...PROBES, ...WALK_STEPS].map(({ name }) => `  passed  ${name}`),
        `Release drill passed: all ${PROBES.length + WALK_STEPS.length} probes and steps of the walk.`,
        '',
      ].join('\n'),
    );
    expect([failed.code, failed.stderr]).toEqual([1, '']);
    expect(failed.stdout).toBe(
      [
        `Probing the bundles in ${broken}, against DynamoDB Local on port ${portOf(failed.stdout)}:`,
        ...PROBES.map(({ name }) =>
          name === nameOf('getPet') ? `  FAILED  ${name}: failed: Error: broken on load` : `  passed  ${name}`,
        ),
        // The walk: its get fails as the probe did, and its listing is not run.
        ...WALK_STEPS.map(({ name, functionName }) =>
          functionName === 'getPet'
            ? `  FAILED  ${name}: failed: Error: broken on load`
            : functionName === 'listPets'
              ? `  FAILED  ${name}: not run: the walk's getPet step failed`
              : `  passed  ${name}`,
        ),
        `Release drill failed: 3 of ${PROBES.length + WALK_STEPS.length} probes and steps of the walk.`,
        '',
      ].join('\n'),
    );
    // Its DynamoDB Local and the functions' processes (each names its bundle) are gone.
    for (const run of [passed, failed]) expect(processesMatching(`-port ${portOf(run.stdout)}\\b`)).toBe('');
    expect([processesMatching(good), processesMatching(broken)]).toEqual(['', '']);
  });

  it('--build <missing directory>: says so, and exits 1', async () => {
    const missing = join(tmpdir(), `release-drill-missing-${randomUUID()}`);
    expect(await runDrill('--build', missing)).toEqual({
      code: 1,
      stdout: '',
      stderr: `Release drill could not run: --build ${missing}: no such directory\n`,
    });
  });
});

/** The command as a user runs it (tsx local/release-drill.ts), stopped (SIGTERM: it stops what it started) should it run past 45 s. */
function runDrill(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...TSX_LOADER, 'local/release-drill.ts', ...args], {
      cwd: root,
      env: shellEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), 45_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function portOf(output: string): string {
  return /on port (\d+):/.exec(output)?.[1] ?? 'none';
}

/** The command lines of running processes that match the pattern. */
function processesMatching(pattern: string): string {
  try {
    return execFileSync('pgrep', ['-af', '--', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
