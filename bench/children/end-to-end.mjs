// Warm round trips to DynamoDB Local: both full bundles in one process, interleaved in blocks.
//
//   node end-to-end.mjs <ours bundle> <baseline bundle> <case JSON: { name, event, status }> <key> <iterations>
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { eventOf, invoke, lambdaContext, percentile } from './events.mjs';

const [oursBundle, baselineBundle, caseText, key, iterationsText] = process.argv.slice(2);
const benchCase = JSON.parse(caseText);
const iterations = Number(iterationsText);
const ours = (await import(pathToFileURL(oursBundle).href)).handler;
const baseline = (await import(pathToFileURL(baselineBundle).href)).handler;

async function run(handler, count, into) {
  for (let i = 0; i < count; i += 1) {
    const event = eventOf(benchCase.event, { key });
    const started = performance.now();
    const response = await invoke(handler, event, lambdaContext());
    const elapsed = performance.now() - started;
    if (response.statusCode !== benchCase.status) throw new Error(`${benchCase.name}: ${response.statusCode} ${response.body}`);
    into?.push(elapsed);
  }
}

await run(ours, 30);
await run(baseline, 30);
const oursTimes = [];
const baselineTimes = [];
const block = 25;
while (oursTimes.length < iterations) {
  await run(ours, block, oursTimes);
  await run(baseline, block, baselineTimes);
}
const summary = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
process.send({ ours: summary(oursTimes), baseline: summary(baselineTimes) }, () => process.exit(0));
