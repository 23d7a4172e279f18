// One function's bundle in a process of its own, run as Lambda's Node.js runtime runs it, for the
// release drill (local/function-process.ts starts it and sends it the invocations):
//
//   node function-runtime.mjs <bundle> <function name> <timeout ms>
//
// It imports the bundle once (a throw there is the function's error on every invocation, as a
// failed init is in Lambda), then answers each invocation { id, event } over IPC with { id, payload }
// (the handler's result as JSON carries it) or { id, error: { errorType, errorMessage } } (it threw).
// Plain JavaScript, so that Node runs the bundle with nothing in between, as Lambda does.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [bundle, functionName, timeoutText] = process.argv.slice(2);
const timeoutMs = Number(timeoutText);

// Listening before the import: an invocation sent meanwhile waits for it instead of being lost.
process.on('message', (message) => void invoke(message));
const loading = load();

async function load() {
  try {
    const module = await import(pathToFileURL(bundle).href);
    if (typeof module.handler !== 'function')
      return {
        error: { errorType: 'Runtime.HandlerNotFound', errorMessage: 'index.handler is undefined or not exported' },
      };
    return { handler: module.handler };
  } catch (error) {
    return { error: errorOf(error, error?.code === 'ERR_MODULE_NOT_FOUND' ? 'Runtime.ImportModuleError' : undefined) };
  }
}

async function invoke({ id, event }) {
  const { handler, error } = await loading;
  if (error !== undefined) return reply({ id, error });
  try {
    const result = await handler(event, contextOf());
    // What Lambda hands back is the result as JSON: undefined is null, functions and symbols are gone.
    reply({ id, payload: JSON.parse(JSON.stringify(result ?? null)) });
  } catch (thrown) {
    reply({ id, error: errorOf(thrown) });
  }
}

function reply(message) {
  if (process.connected) process.send(message);
}

function errorOf(error, errorType) {
  if (error instanceof Error) return { errorType: errorType ?? error.name, errorMessage: error.message };
  return { errorType: errorType ?? typeof error, errorMessage: String(error) };
}

/** The Lambda context, with the function's timeout counted from the invocation. */
function contextOf() {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'release-drill',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
