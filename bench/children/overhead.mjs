// The stack's own cost: each handler invoked many times with DynamoDB answered at once by a stub,
// ours and the baseline interleaved in blocks (ABAB) so drift hits both. The stub replaces `send`
// of the SDK clients both sides use (the bundles leave the SDK to node_modules for this run) and
// answers from a table: no matching machinery, so that the stub costs the same small amount for both.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { BENCH_LIMITS, eventFor, EXPECTED_STATUS, invoke, lambdaContext, percentile } from './events.mjs';

const [oursBundle, baselineBundle, caseName, key, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);
const pet = (id) => ({ pk: 'PET', sk: String(id).padStart(16, '0'), id, name: `Pet ${id}`, categoryId: 3, status: 'available' });
// The registry knows the bench key and nothing else (the authorizer's "no valid key" case).
const benchKeyHash = createHash('sha256').update(key).digest('hex');
const KEY_ITEM = { Item: { pk: 'APIKEY', sk: benchKeyHash, plan: 'enterprise', limits: BENCH_LIMITS, createdAt: '2026-11-22T00:00:00.000Z' } };
// Every answer is built once, before timing starts, in both forms: the stub must cost both sides
// the same few nanoseconds, not convert items on every call.
const attributes = (item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'number' ? { N: String(v) } : typeof v === 'string' ? { S: v } : { M: attributes(v) }]));
const ANSWERS = {
  sequence: { Attributes: { value: 7 } },
  counters: { Attributes: { minuteCount: 1, dayCount: 1 } },
  pet: { Item: pet(1) },
  page: { Items: Array.from({ length: 21 }, (_, i) => pet(i + 1)) },
  put: {},
};
const MARSHALLED_ANSWERS = {
  sequence: { Attributes: attributes(ANSWERS.sequence.Attributes) },
  counters: { Attributes: attributes(ANSWERS.counters.Attributes) },
  pet: { Item: attributes(ANSWERS.pet.Item) },
  page: { Items: ANSWERS.page.Items.map(attributes) },
  put: {},
};
const PLAIN = {
  UpdateCommand: (input) => (input.Key.pk === 'SEQUENCE' ? ANSWERS.sequence : ANSWERS.counters),
  // An idempotency record is never found: every bench create with a key is its key's first use.
  GetCommand: (input) => (input.Key.pk === 'APIKEY' ? (input.Key.sk === benchKeyHash ? KEY_ITEM : {}) : input.Key.pk === 'PET' ? ANSWERS.pet : {}),
  QueryCommand: () => ANSWERS.page,
  PutCommand: () => ANSWERS.put,
  TransactWriteCommand: () => ANSWERS.put,
};
const MARSHALLED = {
  UpdateItemCommand: (input) => (input.Key.pk.S === 'SEQUENCE' ? MARSHALLED_ANSWERS.sequence : MARSHALLED_ANSWERS.counters),
  GetItemCommand: (input) => (input.Key.pk.S === 'APIKEY' ? (input.Key.sk.S === benchKeyHash ? MARSHALLED_KEY_ITEM : {}) : input.Key.pk.S === 'PET' ? MARSHALLED_ANSWERS.pet : {}),
  QueryCommand: () => MARSHALLED_ANSWERS.page,
  PutItemCommand: () => MARSHALLED_ANSWERS.put,
  TransactWriteItemsCommand: () => MARSHALLED_ANSWERS.put,
};
const MARSHALLED_KEY_ITEM = { Item: attributes(KEY_ITEM.Item) };
function stub(Client, answers) {
  Client.prototype.send = async function answer(command) {
    const reply = answers[command.constructor.name];
    if (reply === undefined) throw new Error(`no stub for ${command.constructor.name}`);
    return reply(command.input);
  };
}
stub(DynamoDBDocumentClient, PLAIN);
// listPets reads its cursor keys once (then every five minutes): the first warm-up request does.
stub(SecretsManagerClient, {
  GetSecretValueCommand: (input) => ({ SecretString: input.VersionStage === 'AWSPREVIOUS' ? 'bench-previous-cursor-key' : 'bench-current-cursor-key' }),
});
stub(DynamoDBClient, MARSHALLED);

const ours = (await import(pathToFileURL(oursBundle).href)).handler;
const baseline = (await import(pathToFileURL(baselineBundle).href)).handler;

async function run(handler, count, into, offset) {
  for (let i = 0; i < count; i += 1) {
    const event = eventFor(caseName, { key });
    const context = lambdaContext();
    const started = process.hrtime.bigint();
    const response = await invoke(handler, event, context);
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
