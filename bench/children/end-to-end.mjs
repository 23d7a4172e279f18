// Warm round trips to DynamoDB Local: both full bundles in one process, interleaved in blocks.
//
//   node end-to-end.mjs <ours bundle> <baseline bundle> <case JSON: { name, event, status, pool? }> <key> <iterations>
//
// A case with a setup (bench/setups.ts) comes with `pool`: a JSON file of fills, one per request
// this run sends (endToEndRequests), made by the parent before this process started; each request
// takes the next one, outside the timed part.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { END_TO_END, eventOf, invoke, lambdaContext, percentile, poolOf, withFill } from './events.mjs';

const [oursBundle, baselineBundle, caseText, key, iterationsText] = process.argv.slice(2);
const benchCase = JSON.parse(caseText);
const iterations = Number(iterationsText);
const pool =
  benchCase.pool === undefined ? undefined : poolOf(JSON.parse(readFileSync(benchCase.pool, 'utf8')), benchCase.name);
const ours = (await import(pathToFileURL(oursBundle).href)).handler;
const baseline = (await import(pathToFileURL(baselineBundle).href)).handler;

async function run(handler, count, into) {
  for (let i = 0; i < count; i += 1) {
    const event = eventOf(withFill(benchCase.event, pool?.take()), { key });
    const started = performance.now();
    const response = await invoke(handler, event, lambdaContext());
    const elapsed = performance.now() - started;
    if (response.statusCode !== benchCase.status)
      throw new Error(`${benchCase.name}: ${response.statusCode} ${response.body}`);
    into?.push(elapsed);
  }
}

await run(ours, END_TO_END.warmUp);
await run(baseline, END_TO_END.warmUp);
const oursTimes = [];
const baselineTimes = [];
while (oursTimes.length < iterations) {
  await run(ours, END_TO_END.block, oursTimes);
  await run(baseline, END_TO_END.block, baselineTimes);
}
const summary = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
process.send({ ours: summary(oursTimes), baseline: summary(baselineTimes) }, () => process.exit(0));
