// The stack's own cost: each handler invoked many times with DynamoDB answered at once by a stub
// (stub.mjs), ours and the baseline interleaved in blocks (ABAB) so drift hits both. The stub
// replaces `send` of the SDK clients both sides use (the bundles leave the SDK to node_modules for
// this run) and answers from answers built before timing starts, so that it costs both the same.
//
//   node overhead.mjs <ours bundle> <baseline bundle> <case JSON> <key> <iterations> <table JSON>
//
// The case: `{ name, event, status }` of bench/cases.ts; the table: the keys and item partitions.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { pathToFileURL } from 'node:url';
import { eventOf, invoke, lambdaContext, percentile } from './events.mjs';
import { dynamoDbStub, install } from './stub.mjs';

const [oursBundle, baselineBundle, caseText, key, iterationsText, tableText] = process.argv.slice(2);
const benchCase = JSON.parse(caseText);
const iterations = Number(iterationsText);
const stub = dynamoDbStub({ table: JSON.parse(tableText), benchKey: key });
install(DynamoDBDocumentClient, stub.documentClient, stub.misses);
install(DynamoDBClient, stub.client, stub.misses);
// listPets reads its cursor keys once (then every five minutes): the first warm-up request does.
install(SecretsManagerClient, {
  GetSecretValueCommand: (input) => ({
    SecretString: input.VersionStage === 'AWSPREVIOUS' ? 'bench-previous-cursor-key' : 'bench-current-cursor-key',
  }),
});

const ours = (await import(pathToFileURL(oursBundle).href)).handler;
const baseline = (await import(pathToFileURL(baselineBundle).href)).handler;

async function run(handler, count, into, offset) {
  for (let i = 0; i < count; i += 1) {
    const event = eventOf(benchCase.event, { key });
    const context = lambdaContext();
    const started = process.hrtime.bigint();
    const response = await invoke(handler, event, context);
    const elapsed = process.hrtime.bigint() - started;
    if (response.statusCode !== benchCase.status) {
      // A handler answers a failed DynamoDB request with a 500: say which request the stub could not answer.
      const missed = stub.misses.length === 0 ? '' : ` (${stub.misses[0]}: bench/children/stub.mjs)`;
      throw new Error(`${benchCase.name}: ${response.statusCode} ${response.body}${missed}`);
    }
    if (into) into[offset + i] = Number(elapsed) / 1000;
  }
}

const warmup = Math.min(2_000, iterations);
await run(ours, warmup);
await run(baseline, warmup);
const block = 1_000;
const oursTimes = new Float64Array(iterations);
const baselineTimes = new Float64Array(iterations);
for (let done = 0; done < iterations; done += block) {
  const count = Math.min(block, iterations - done);
  await run(ours, count, oursTimes, done);
  await run(baseline, count, baselineTimes, done);
}
const summary = (times) => {
  const sorted = Array.from(times).sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
process.send({ ours: summary(oursTimes), baseline: summary(baselineTimes) }, () => process.exit(0));
