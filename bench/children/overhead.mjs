// The stack's own cost: each handler invoked many times with DynamoDB answered at once by a stub
// (aws-sdk-client-mock), ours and the baseline interleaved in blocks (ABAB) so drift hits both.
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand as DocQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { pathToFileURL } from 'node:url';
import { eventFor, EXPECTED_STATUS, lambdaContext, percentile } from './events.mjs';

const [oursBundle, baselineBundle, caseName, key, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);
const pet = (id) => ({ id, name: `Pet ${id}`, categoryId: 3, status: 'available' });
const marshalled = (id) => ({ pk: { S: 'PET' }, sk: { S: String(id).padStart(16, '0') }, id: { N: String(id) }, name: { S: `Pet ${id}` }, categoryId: { N: '3' }, status: { S: 'available' } });
const limits = { perMinute: 100_000_000, perDay: 100_000_000 };

// Ours (lib-dynamodb: plain values).
const doc = mockClient(DynamoDBDocumentClient);
doc.on(UpdateCommand).callsFake(async (input) => (input.Key.pk === 'SEQUENCE' ? { Attributes: { value: 7 } } : { Attributes: { minuteCount: 1, dayCount: 1 } }));
doc.on(GetCommand).callsFake(async (input) => (input.Key.pk === 'APIKEY' ? { Item: { pk: 'APIKEY', sk: input.Key.sk, plan: 'enterprise', limits, createdAt: '2026-11-22T00:00:00.000Z' } } : { Item: { pk: 'PET', ...pet(1) } }));
doc.on(DocQuery).resolves({ Items: Array.from({ length: 21 }, (_, i) => ({ pk: 'PET', ...pet(i + 1) })) });
doc.on(PutCommand).resolves({});
// The baseline (the raw client: attribute values).
const raw = mockClient(DynamoDBClient);
raw.on(UpdateItemCommand).callsFake(async (input) => (input.Key.pk.S === 'SEQUENCE' ? { Attributes: { value: { N: '7' } } } : { Attributes: { minuteCount: { N: '1' }, dayCount: { N: '1' } } }));
raw.on(GetItemCommand).callsFake(async (input) =>
  input.Key.pk.S === 'APIKEY' ? { Item: { limits: { M: { perMinute: { N: String(limits.perMinute) }, perDay: { N: String(limits.perDay) } } } } } : { Item: marshalled(1) },
);
raw.on(QueryCommand).resolves({ Items: Array.from({ length: 21 }, (_, i) => marshalled(i + 1)) });
raw.on(PutItemCommand).resolves({});

const ours = (await import(pathToFileURL(oursBundle).href)).handler;
const baseline = (await import(pathToFileURL(baselineBundle).href)).handler;

async function run(handler, count, into, offset) {
  for (let i = 0; i < count; i += 1) {
    const event = eventFor(caseName, { key });
    const context = lambdaContext();
    const started = process.hrtime.bigint();
    const response = await handler(event, context);
    const elapsed = process.hrtime.bigint() - started;
    if (response.statusCode !== EXPECTED_STATUS[caseName]) throw new Error(`${caseName}: ${response.statusCode} ${response.body}`);
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
