// One cold start under V8's sampling profiler: the import and the first response profiled apart.
//
//   node cold-start-profile.mjs <bundle> <event spec JSON> <key> <sampling interval µs>
//
// Sends both profiles (Chrome's .cpuprofile format) to the parent, which attributes their samples
// to the bundle's modules (bench/cold-start-profile.ts).
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { eventOf, invoke, lambdaContext } from './events.mjs';

const [bundle, eventText, key, interval] = process.argv.slice(2);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(interval) });
await session.post('Profiler.start');
const { handler } = await import(pathToFileURL(bundle).href);
const { profile: importProfile } = await session.post('Profiler.stop');
await session.post('Profiler.start');
const response = await invoke(handler, eventOf(JSON.parse(eventText), { key }), lambdaContext());
const { profile: firstResponseProfile } = await session.post('Profiler.stop');
process.send({ importProfile, firstResponseProfile, status: response.statusCode }, () => process.exit(0));
