import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addProfile,
  bundleModulesOf,
  emptyTotals,
  groupOf,
  moduleLabel,
  profileReport,
  timeByModule,
  type CpuProfile,
} from '../../../bench/cold-start-profile';

/** The bench's cold-start profile (`npm run bench -- --only profile`) on a made-up bundle and profile. */
const dir = mkdtempSync(join(tmpdir(), 'petstore-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, 'index.mjs');
writeFileSync(
  bundle,
  [
    'var __esm = () => {};', // 1: esbuild's runtime
    '// node_modules/zod/v4/core/core.js', // 2
    'var a = 1;', // 3
    '// ../main/node_modules/@middy/core/index.js', // 4: a dependency reached through a symlink
    'var b = 2;', // 5
    '// shared/http/stack.ts', // 6
    'var c = 3;', // 7
    'var d = 4;', // 8
  ].join('\n'),
);

/** Samples 100 µs apart: each listed node id is one sample. */
function profileOf(nodes: CpuProfile['nodes'], samples: number[]): CpuProfile {
  return { nodes, samples, timeDeltas: [0, ...samples.map(() => 100)] };
}

describe('the cold-start profile', () => {
  it('labels a package by its name wherever node_modules is, and our files by their path', () => {
    expect(moduleLabel('node_modules/@aws-sdk/client-dynamodb/dist-es/index.js')).toBe('@aws-sdk/client-dynamodb');
    expect(moduleLabel('../main/node_modules/zod/v4/core/core.js')).toBe('zod');
    expect(moduleLabel('shared/http/stack.ts')).toBe('shared/http/stack.ts');
    expect(moduleLabel('../../work/main/shared/http/stack.ts')).toBe('shared/http/stack.ts');
  });

  it('gives each line of the bundle to the module it is in, by the ticks of each line, and the rest to V8 and Node', () => {
    const url = pathToFileURL(bundle).href;
    const modules = bundleModulesOf(bundle);
    const profile = profileOf(
      [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
        {
          id: 2,
          callFrame: { functionName: 'init', url, lineNumber: 2 },
          positionTicks: [
            { line: 3, ticks: 1 },
            { line: 7, ticks: 3 },
          ],
        },
        { id: 3, callFrame: { functionName: 'use', url, lineNumber: 4 }, positionTicks: [{ line: 5, ticks: 2 }] },
        { id: 4, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
        { id: 5, callFrame: { functionName: 'readFile', url: 'node:internal/fs/promises', lineNumber: 10 } },
        { id: 6, callFrame: { functionName: 'helper', url, lineNumber: 0 } },
        { id: 7, callFrame: { functionName: 'writev', url: '', lineNumber: -1 } },
      ],
      [2, 2, 2, 2, 3, 3, 4, 5, 6, 7],
    );
    expect(Object.fromEntries(timeByModule(profile, modules))).toEqual({
      zod: 100,
      'shared/http/stack.ts': 300,
      '@middy/core': 200,
      '(garbage collector)': 100,
      'node:internal/fs': 100,
      '(esbuild runtime and banner)': 100,
      'native: writev': 100,
    });
  });

  it('sums profiles into groups, ours beside the baseline, and reports the difference', () => {
    const url = pathToFileURL(bundle).href;
    const modules = bundleModulesOf(bundle);
    const totals = emptyTotals();
    const zodTicks = profileOf(
      [{ id: 1, callFrame: { functionName: 'f', url, lineNumber: 2 }, positionTicks: [{ line: 3, ticks: 1 }] }],
      [1, 1],
    );
    addProfile(totals, { side: 'ours', phase: 'import' }, zodTicks, modules);
    addProfile(totals, { side: 'ours', phase: 'import' }, zodTicks, modules);
    expect(totals.ours.import.get('zod')).toBe(400);
    const report = profileReport('getPet', totals, 2);
    expect(report).toContain('| **all** | **0.20** | **0.00** | **0.20** | **0.00** | **0.00** | **0.00** |');
    expect(report).toContain('| zod | 0.20 | 0.00 | 0.20 | 0.00 | 0.00 | 0.00 |');
    expect(groupOf('@aws-sdk/lib-dynamodb')).toBe('DynamoDB document client (lib-dynamodb, util-dynamodb)');
    expect(groupOf('@smithy/core')).toBe('AWS SDK and its dependencies (both)');
    expect(groupOf('node:internal/modules')).toBe('loading and compiling the bundle');
    expect(groupOf('functions/getPet/handler.ts')).toBe('our code (shared/, functions/)');
    expect(groupOf('functions/getPet/baseline.ts')).toBe("the baseline's handler code");
    expect(groupOf('bench/baseline/common.ts')).toBe("the baseline's handler code");
    expect(groupOf('mnemonist')).toBe('AWS SDK and its dependencies (both)');
    // A native frame of Node's (a C++ binding) is not a package.
    expect(groupOf('native: writev')).toBe('Node and V8, other');
    expect(groupOf('node:internal/streams')).toBe('Node and V8, other');
  });
});
