// createPet's handler on bodies of each shape (bench/body-shapes.ts), ours and the baseline, with
// DynamoDB answered at once by the overhead's stub (stub.mjs) and every request admitted by the
// stubbed counter: what reading and judging a body costs beside a plain one of its size. Within a
// size, every body's blocks of ours and the baseline come in turn, round after round, so drift
// hits the plain body and each shape alike.
//
//   node bodies.mjs <ours bundle> <baseline bundle> <bodies file> <key> <iterations> <table JSON>
//
// The bodies file (JSON, as the bodies are too long for arguments): { spec, bodies: [{ shape, bytes, status, text }] },
// the spec createPet's route (bench/children/events.mjs).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { eventOf, invoke, lambdaContext, percentile } from './events.mjs';
import { dynamoDbStub, install } from './stub.mjs';

const [oursBundle, baselineBundle, bodiesFile, key, iterationsText, tableText] = process.argv.slice(2);
const { spec, bodies } = JSON.parse(readFileSync(bodiesFile, 'utf8'));
const iterations = Number(iterationsText);
const stub = dynamoDbStub({ table: JSON.parse(tableText), benchKey: key });
// createPet's only client (it reads no secret).
install(DynamoDBClient, stub.client, stub.misses);

const handlers = {
  ours: (await import(pathToFileURL(oursBundle).href)).handler,
  baseline: (await import(pathToFileURL(baselineBundle).href)).handler,
};

/** Runs `body` `count` times on one side; `times`: where its times go, from `times.offset` in `times.into` (none: a warm-up). */
async function run(side, body, count, times) {
  const handler = handlers[side];
  for (let i = 0; i < count; i += 1) {
    const event = eventOf({ ...spec, bodyText: body.text }, { key });
    const context = lambdaContext();
    const started = process.hrtime.bigint();
    const response = await invoke(handler, event, context);
    const elapsed = process.hrtime.bigint() - started;
    if (response.statusCode !== body.status) {
      const missed = stub.misses.length === 0 ? '' : ` (${stub.misses[0]}: bench/children/stub.mjs)`;
      throw new Error(
        `${body.shape} at ${body.bytes} bytes (${side}): ${response.statusCode} ${response.body.slice(0, 300)}${missed}, not ${body.status}`,
      );
    }
    if (times) times.into[times.offset + i] = Number(elapsed) / 1000;
  }
}

const SIDES = ['ours', 'baseline'];
const block = 50;
const warmup = 100;
const times = bodies.map(() => ({ ours: new Float64Array(iterations), baseline: new Float64Array(iterations) }));
for (const bytes of [...new Set(bodies.map((body) => body.bytes))]) {
  const ofSize = bodies.flatMap((body, index) => (body.bytes === bytes ? [index] : []));
  for (const index of ofSize) for (const side of SIDES) await run(side, bodies[index], warmup);
  for (let done = 0; done < iterations; done += block) {
    const count = Math.min(block, iterations - done);
    for (const index of ofSize)
      for (const side of SIDES) await run(side, bodies[index], count, { into: times[index][side], offset: done });
  }
}
const p50 = (values) =>
  percentile(
    Array.from(values).sort((a, b) => a - b),
    50,
  );
process.send(
  bodies.map((body, index) => ({
    shape: body.shape,
    bytes: body.bytes,
    ours: p50(times[index].ours),
    baseline: p50(times[index].baseline),
  })),
  () => process.exit(0),
);
