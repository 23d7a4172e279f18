import { setTimeout as sleep } from 'node:timers/promises';
import { GetItemCommand, type DynamoDBClient, type GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { queueCallsForSockets } from '../../local/dynamodb-socket-queue';
import { createDynamoDbClient, LOCAL_CALL_BOUNDS, LOCAL_CALLS_IN_FLIGHT } from '../../shared/dynamodb/client';
import { ServiceUnavailableError } from '../../shared/errors';
import { faultProxyForThisFile } from '../support/fault-proxy';
import { testDatabase } from '../support/database';

/**
 * The local server's client queues its DynamoDB calls for a socket before the SDK's bounds start
 * (local/dynamodb-socket-queue.ts), here in front of DynamoDB Local through the fault proxy, which
 * holds the requests that reach it until released: what is held is what went out.
 */
const db = testDatabase();
const proxy = faultProxyForThisFile(db.endpoint);

function queuedClient(inFlight: number, maxWaitMs?: number): DynamoDBClient {
  const client = createDynamoDbClient({ region: 'us-east-1', dynamoDbEndpoint: proxy.endpoint });
  queueCallsForSockets(client, { inFlight, ...(maxWaitMs === undefined ? {} : { maxWaitMs }) });
  return client;
}

/** A read of an item that need not exist, labelled by the proxy as `GetItem <pk>`. */
const read = (client: DynamoDBClient, pk: string, signal?: AbortSignal): Promise<GetItemCommandOutput> =>
  client.send(
    new GetItemCommand({ TableName: db.tableName, Key: { pk: { S: pk }, sk: { S: 'queue' } } }),
    signal === undefined ? {} : { abortSignal: signal },
  );

describe("the local client's socket queue", () => {
  it('sends at most its number of calls at once; the others wait past the connection bound without spending it, and each is answered at its first attempt', async () => {
    const client = queuedClient(LOCAL_CALLS_IN_FLIGHT);
    // More than the pool's sockets (twice the calls in flight): without the queue, the last ones would wait in the pool.
    const calls = 3 * LOCAL_CALLS_IN_FLIGHT;
    proxy.hold();
    try {
      const answers = Promise.all(Array.from({ length: calls }, (_, i) => read(client, `burst-${i}`)));
      expect(await proxy.held(LOCAL_CALLS_IN_FLIGHT)).toHaveLength(LOCAL_CALLS_IN_FLIGHT);
      // Longer than a call may take to be given a connection, shorter than an answer may take.
      await sleep(LOCAL_CALL_BOUNDS.connectionTimeoutMs + 200);
      expect(await proxy.held(1)).toHaveLength(LOCAL_CALLS_IN_FLIGHT);
      proxy.release({ stopHolding: true });
      expect((await answers).map((answer) => answer.$metadata.attempts)).toEqual(Array(calls).fill(1));

      // Every slot came back once its answer was read: as many at once again.
      proxy.hold();
      const again = Promise.all(Array.from({ length: LOCAL_CALLS_IN_FLIGHT }, (_, i) => read(client, `again-${i}`)));
      expect(await proxy.held(LOCAL_CALLS_IN_FLIGHT)).toHaveLength(LOCAL_CALLS_IN_FLIGHT);
      proxy.release({ stopHolding: true });
      await again;
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it('serves the calls of the invocation it saw first before those of a later one, whatever order they came in', async () => {
    const client = queuedClient(1);
    const first = new AbortController();
    const later = new AbortController();
    proxy.hold();
    try {
      const a1 = read(client, 'first-1', first.signal);
      expect(await proxy.held(1)).toEqual(['GetItem first-1']);
      const b1 = read(client, 'later-1', later.signal);
      const a2 = read(client, 'first-2', first.signal);
      proxy.release();
      expect(await proxy.held(1)).toEqual(['GetItem first-2']);
      proxy.release();
      expect(await proxy.held(1)).toEqual(['GetItem later-1']);
      proxy.release({ stopHolding: true });
      await Promise.all([a1, b1, a2]);
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it("ends a wait at the call's abort signal: never sent, a 503 (AbortError) as for a call aborted in flight", async () => {
    const client = queuedClient(1);
    proxy.hold();
    try {
      const sent = read(client, 'in-flight');
      expect(await proxy.held(1)).toEqual(['GetItem in-flight']);
      const deadline = new AbortController();
      const waiting = read(client, 'waiting', deadline.signal);
      deadline.abort(new DOMException('The operation ran into the function timeout.', 'TimeoutError'));
      const error = await waiting.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).cause).toMatchObject({ name: 'AbortError' });
      expect(await proxy.held(1)).toEqual(['GetItem in-flight']);
      const seenBefore = proxy.seen.get('GetItem') ?? 0;
      proxy.release({ stopHolding: true });
      await sent;
      // The proxy counts what it forwards unheld: nothing came after the held call.
      expect(proxy.seen.get('GetItem') ?? 0).toBe(seenBefore);
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it("ends a wait without a signal after its longest wait: never sent, a 503 once the SDK's attempts have each waited so long", async () => {
    const client = queuedClient(1, 200);
    proxy.hold();
    try {
      const sent = read(client, 'holding-the-slot');
      expect(await proxy.held(1)).toEqual(['GetItem holding-the-slot']);
      const error = await read(client, 'never-sent').then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).cause).toMatchObject({
        name: 'TimeoutError',
        $metadata: { attempts: 3 },
      });
      expect(await proxy.held(1)).toEqual(['GetItem holding-the-slot']);
      proxy.release({ stopHolding: true });
      await sent;
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it('queued again (a second server on the same client), keeps one queue and takes the longer of the two waits, never the shorter', async () => {
    const client = queuedClient(1, 200);
    queueCallsForSockets(client, { inFlight: 1, maxWaitMs: 100 }); // shorter: no change
    queueCallsForSockets(client, { inFlight: 1, maxWaitMs: 5_000 });
    proxy.hold();
    try {
      const sent = read(client, 'holding-the-slot');
      expect(await proxy.held(1)).toEqual(['GetItem holding-the-slot']);
      let settled = false;
      const waiting = read(client, 'waiting').finally(() => (settled = true));
      // Past three waits of 200 ms (the first bound's 503, test above), the call still waits for its slot.
      await sleep(1_000);
      expect(settled).toBe(false);
      expect(await proxy.held(1)).toEqual(['GetItem holding-the-slot']);
      proxy.release({ stopHolding: true });
      await sent;
      await expect(waiting).resolves.toMatchObject({ $metadata: { httpStatusCode: 200, attempts: 1 } });
    } finally {
      proxy.release({ stopHolding: true });
    }
  });

  it('gives the slot of a call that failed in flight back: the next call is sent', async () => {
    const client = queuedClient(1);
    const seenBefore = proxy.seen.get('GetItem') ?? 0;
    proxy.inject('reset', ['GetItem']);
    await expect(read(client, 'reset')).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect((proxy.seen.get('GetItem') ?? 0) - seenBefore).toBe(3);
    proxy.clear();
    await expect(read(client, 'after-the-reset')).resolves.toMatchObject({
      $metadata: { httpStatusCode: 200, attempts: 1 },
    });
  });
});
