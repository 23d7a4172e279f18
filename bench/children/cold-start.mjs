// One cold start: a fresh process imports a bundle and serves one request against DynamoDB Local.
//
//   node cold-start.mjs <bundle> <event spec JSON> <key>
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { eventOf, invoke, lambdaContext } from './events.mjs';

const [bundle, eventText, key] = process.argv.slice(2);
const start = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const imported = performance.now();
const response = await invoke(handler, eventOf(JSON.parse(eventText), { key }), lambdaContext());
const answered = performance.now();
process.send({ importMs: imported - start, firstResponseMs: answered - start, status: response.statusCode }, () =>
  process.exit(0),
);
