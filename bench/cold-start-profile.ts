/**
 * Where a cold start's time goes, by module: `npm run bench -- --only profile`. Each function, ours
 * and the baseline, is bundled as deployed but with line breaks kept (identifiers and syntax still
 * minified) and esbuild's `// <path>` comment at each module's start. Fresh processes import it and
 * serve one request under V8's sampling profiler (bench/children/cold-start-profile.mjs); every
 * sample's line is attributed to the module whose code it is in, or, outside the bundle, to V8's
 * own entries (parsing and compiling show as `(program)`) and Node's internal modules (the source
 * map is read by `node:internal/source_map/…`). The profiler slows everything down, so read the
 * figures as shares of a cold start, not as its duration.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Chrome's .cpuprofile format, as V8's inspector returns it. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The modules of a bundle built with line breaks: which module each line belongs to. */
export interface BundleModules {
  readonly url: string;
  /** 1-based first line of each module, ascending, with its label. */
  readonly starts: readonly { readonly line: number; readonly label: string }[];
}

/** `node_modules/@aws-sdk/client-dynamodb/dist-es/…` → `@aws-sdk/client-dynamodb`; our files keep their path. */
export function moduleLabel(path: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return inPackage ? (inPackage[1] as string) : path;
}

export function bundleModulesOf(bundleFile: string): BundleModules {
  const starts: { line: number; label: string }[] = [{ line: 1, label: '(esbuild runtime and banner)' }];
  readFileSync(bundleFile, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const comment = /^\/\/ ((?:node_modules|shared|functions|bench)\/\S+\.(?:[cm]?js|ts|json))$/.exec(text);
      if (comment) starts.push({ line: index + 1, label: moduleLabel(comment[1] as string) });
    });
  return { url: pathToFileURL(bundleFile).href, starts };
}

function labelOfLine(modules: BundleModules, line: number): string {
  let low = 0;
  let high = modules.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((modules.starts[middle] as { line: number }).line <= line) low = middle;
    else high = middle - 1;
  }
  return (modules.starts[low] as { label: string }).label;
}

/** Microseconds of a profile per module (or V8 entry, or Node internal module). */
export function timeByModule(profile: CpuProfile, modules: BundleModules): Map<string, number> {
  // A sample's time is the gap to the next one.
  const microsecondsOfNode = new Map<number, number>();
  profile.samples.forEach((nodeId, index) => {
    const gap = profile.timeDeltas[index + 1] ?? 0;
    microsecondsOfNode.set(nodeId, (microsecondsOfNode.get(nodeId) ?? 0) + gap);
  });
  const byModule = new Map<string, number>();
  const add = (label: string, microseconds: number) => byModule.set(label, (byModule.get(label) ?? 0) + microseconds);
  for (const node of profile.nodes) {
    const microseconds = microsecondsOfNode.get(node.id) ?? 0;
    if (microseconds === 0) continue;
    const { url, functionName } = node.callFrame;
    if (url === modules.url) {
      const ticks = node.positionTicks ?? [];
      const total = ticks.reduce((sum, { ticks: count }) => sum + count, 0);
      if (total === 0) add(labelOfLine(modules, node.callFrame.lineNumber + 1), microseconds);
      for (const { line, ticks: count } of ticks) add(labelOfLine(modules, line), (microseconds * count) / total);
    } else if (url === '') add(functionName || '(anonymous native)', microseconds);
    else if (url.startsWith('node:')) add(url.replace(/^node:internal\/([^/]+).*$/, 'node:internal/$1'), microseconds);
    else add('(bench harness)', microseconds);
  }
  return byModule;
}
