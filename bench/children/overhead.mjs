// The stack's own cost: each handler invoked many times with DynamoDB answered at once by a stub,
// ours and the baseline interleaved in blocks (ABAB) so drift hits both. The stub replaces `send`
// of the SDK clients both sides use (the bundles leave the SDK to node_modules for this run) and
// answers from a table: no matching machinery, so that the stub costs the same small amount for both.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pathToFileURL } from 'node:url';
import { eventFor, EXPECTED_STATUS, lambdaContext, percentile } from './events.mjs';

const [oursBundle, baselineBundle, caseName, key, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);
const pet = (id) => ({ pk: 'PET', sk: String(id).padStart(16, '0'), id, name: `Pet ${id}`, categoryId: 3, status: 'available' });
const limits = { perMinute: 100_000_000, perDay: 100_000_000 };
const PLAIN = {
  UpdateCommand: (input) => (input.Key.pk === 'SEQUENCE' ? { Attributes: { value: 7 } } : { Attributes: { minuteCount: 1, dayCount: 1 } }),
  GetCommand: (input) => (input.Key.pk === 'APIKEY' ? { Item: { pk: 'APIKEY', sk: input.Key.sk, plan: 'enterprise', limits, createdAt: '2026-11-22T00:00:00.000Z' } } : { Item: pet(1) }),
  QueryCommand: () => ({ Items: Array.from({ length: 21 }, (_, i) => pet(i + 1)) }),
  PutCommand: () => ({}),
};
const attributes = (item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'number' ? { N: String(v) } : typeof v === 'string' ? { S: v } : { M: attributes(v) }]));
const MARSHALLED = {
  UpdateItemCommand: (input) => ({ Attributes: attributes(PLAIN.UpdateCommand({ Key: { pk: input.Key.pk.S } }).Attributes) }),
  GetItemCommand: (input) => ({ Item: attributes(PLAIN.GetCommand({ Key: { pk: input.Key.pk.S, sk: input.Key.sk.S } }).Item) }),
  QueryItemCommand: undefined,
  QueryCommand: () => ({ Items: PLAIN.QueryCommand().Items.map(attributes) }),
  PutItemCommand: () => ({}),
};
function stub(Client, answers) {
  Client.prototype.send = async function answer(command) {
    const reply = answers[command.constructor.name];
    if (reply === undefined) throw new Error(`no stub for ${command.constructor.name}`);
    return reply(command.input);
  };
}
stub(DynamoDBDocumentClient, PLAIN);
stub(DynamoDBClient, MARSHALLED);

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
