import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * The local server's DynamoDB calls wait for a socket before the SDK's bounds start.
 *
 * In AWS each function instance has a client of its own and serves one request at a time: a
 * handful of calls at once, far under its pool, so no call ever waits for a socket. The local
 * server runs every function in one process with one client, and 500 requests at once are
 * thousands of calls. The SDK starts a call's connection and request timers when it makes the
 * Node request, before the pool's agent gives it a socket: a call queued in the agent is failed
 * (503, or a create's retry sent too late) by a bound meant for DynamoDB's answer. Here a call is
 * handed to the SDK's handler only when fewer than `inFlight` calls are, in a pool of twice as many
 * sockets (shared/dynamodb/client.ts: the pool counts a failed call's socket until it is closed),
 * so the agent has a socket for it at once and its bounds count DynamoDB Local alone.
 *
 * The wait has a bound of its own: the call's abort signal (a request's deadline: every call of a
 * local request has one) ends it with the SDK's AbortError, and no call waits longer than
 * `maxWaitMs` (a TimeoutError, retried by the SDK like any attempt's). A call ended in the queue
 * was never sent.
 */
export interface SocketQueueOptions {
  /** How many calls are in flight at most. */
  readonly inFlight: number;
  /** The longest a call waits when its abort signal does not end the wait sooner. */
  readonly maxWaitMs?: number;
}

/** A local request lasts 10 s at most (decisions.md): a call that waited that long serves no one. */
const MAX_SOCKET_WAIT_MS = 10_000;

type RequestHandler = DynamoDBClient['config']['requestHandler'];

/** Each queued handler's longest wait: the longest any server on it asked for (two servers in one process share the client). */
const waits = new WeakMap<RequestHandler, { maxWaitMs: number }>();

/** Puts the queue in front of the client's request handler (shared by every client made on it, the document client included); once, then only lengthens its wait. */
export function queueCallsForSockets(
  client: DynamoDBClient,
  { inFlight, maxWaitMs = MAX_SOCKET_WAIT_MS }: SocketQueueOptions,
): void {
  const handler = client.config.requestHandler;
  const queued = waits.get(handler);
  if (queued !== undefined) {
    queued.maxWaitMs = Math.max(queued.maxWaitMs, maxWaitMs);
    return;
  }
  const wait = { maxWaitMs };
  waits.set(handler, wait);
  const slots = new Slots(inFlight);
  const send = handler.handle.bind(handler);
  handler.handle = async function handleWhenASocketIsFree(request, options) {
    const signal: unknown = (options as { abortSignal?: unknown } | undefined)?.abortSignal;
    await slots.take(signal instanceof AbortSignal ? signal : undefined, wait.maxWaitMs);
    let output: Awaited<ReturnType<typeof send>>;
    try {
      output = await send(request, options);
    } catch (error) {
      slots.give();
      throw error;
    }
    // The socket is the call's until its answer is read: the slot goes back when the body closes.
    releaseWhenRead(output.response.body, () => slots.give());
    return output;
  };
}

function releaseWhenRead(body: unknown, release: () => void): void {
  const stream = body as
    | { once?: (event: 'close', listener: () => void) => void; closed?: boolean; destroyed?: boolean }
    | undefined;
  if (typeof stream?.once !== 'function' || stream.closed === true || stream.destroyed === true) {
    release();
    return;
  }
  stream.once('close', release);
}

/**
 * Free slots, and the calls waiting for one. The oldest invocation goes first, not the oldest call:
 * a call ranks by when the queue first saw its abort signal (one per invocation, shared by its
 * calls: shared/dynamodb/call-deadline.ts), so an invocation's later calls pass the calls of invocations that
 * came after it. First come, first served by call, every request would move a step at a time and
 * reach its deadline together with the others when DynamoDB Local falls behind; this way the
 * earlier ones end, as with Lambda's instances, and only the last can run out of time.
 */
class Slots {
  #free: number;
  #arrivals = 0;
  readonly #rankOf = new WeakMap<AbortSignal, number>();
  readonly #waiting = new WaitingCalls();

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new Error(`a socket queue lets at least one call in flight, got ${size}`);
    this.#free = size;
  }

  take(signal: AbortSignal | undefined, maxWaitMs: number): Promise<void> {
    const arrival = this.#arrivals++;
    const rank = this.#rank(signal, arrival);
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        rank,
        arrival,
        gone: false,
        handOver: () => {
          leave();
          resolve();
        },
      };
      const leave = () => {
        waiter.gone = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        leave();
        reject(abortError(signal));
      };
      const timer = setTimeout(() => {
        leave();
        reject(
          Object.assign(new Error(`no socket of the pool was free within ${maxWaitMs} ms`), { name: 'TimeoutError' }),
        );
      }, maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  give(): void {
    const next = this.#waiting.pop();
    if (next === undefined) this.#free += 1;
    else next.handOver();
  }

  /** A call without a signal ranks by its own arrival. */
  #rank(signal: AbortSignal | undefined, arrival: number): number {
    if (signal === undefined) return arrival;
    const known = this.#rankOf.get(signal);
    if (known !== undefined) return known;
    this.#rankOf.set(signal, arrival);
    return arrival;
  }
}

interface Waiter {
  readonly rank: number;
  readonly arrival: number;
  /** Aborted or timed out: left in the heap, skipped when it comes up. */
  gone: boolean;
  readonly handOver: () => void;
}

/** A binary heap of waiting calls, lowest rank first, then first arrived. */
class WaitingCalls {
  readonly #heap: Waiter[] = [];

  push(waiter: Waiter): void {
    const heap = this.#heap;
    heap.push(waiter);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Waiter, heap[parent] as Waiter)) break;
      [heap[i], heap[parent]] = [heap[parent] as Waiter, heap[i] as Waiter];
      i = parent;
    }
  }

  /** The first waiter still waiting, taken out; undefined when none is. */
  pop(): Waiter | undefined {
    const heap = this.#heap;
    while (heap.length > 0) {
      const top = heap[0] as Waiter;
      const last = heap.pop() as Waiter;
      if (heap.length > 0) {
        heap[0] = last;
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          const right = left + 1;
          let first = i;
          if (left < heap.length && before(heap[left] as Waiter, heap[first] as Waiter)) first = left;
          if (right < heap.length && before(heap[right] as Waiter, heap[first] as Waiter)) first = right;
          if (first === i) break;
          [heap[i], heap[first]] = [heap[first] as Waiter, heap[i] as Waiter];
          i = first;
        }
      }
      if (!top.gone) return top;
    }
    return undefined;
  }
}

const before = (a: Waiter, b: Waiter): boolean => a.rank < b.rank || (a.rank === b.rank && a.arrival < b.arrival);

/** As the SDK's handler fails a call aborted before it is sent: an AbortError, its cause the signal's reason. */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  const error = new Error(reason instanceof Error || reason === undefined ? 'Request aborted' : String(reason));
  error.name = 'AbortError';
  if (reason instanceof Error) error.cause = reason;
  return error;
}
