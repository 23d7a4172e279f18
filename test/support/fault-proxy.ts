import { afterAll, afterEach, beforeAll } from 'vitest';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback proxy in front of the real DynamoDB Local that injects the faults a real server
 * will not produce on demand: throttling, a dropped connection, no answer at all, or a reply lost
 * after DynamoDB did the work (the connection drops once the request went through), or a
 * transaction cancelled because another one holds its item (`TransactionConflict`), or a write's
 * condition failing every time (as if another writer changed the item before each one), for chosen
 * operations (the `X-Amz-Target` of the DynamoDB JSON protocol, e.g. "PutItem"). It can also hold
 * requests until released, to see which ones a handler sends together (its round trips).
 */
export type Fault =
  | 'throttle'
  | 'reset'
  | 'reset-once'
  | 'hang'
  | 'lose-reply-once'
  | 'lose-reply'
  | 'slow'
  | 'transaction-conflict'
  | 'transaction-throttled'
  | 'condition-failed'
  | 'write-conflict'
  | 'write-conflict-once';

export interface FaultProxy {
  readonly endpoint: string;
  /** Operations answered with a fault; every other request reaches DynamoDB Local. 'slow' forwards after `delayMs`. */
  inject(fault: Fault, operations: string[], delayMs?: number): void;
  clear(): void;
  /**
   * Answers the next TransactWriteItems (only that one) as DynamoDB answers a transaction it
   * cancelled, with these reasons (one per item, in order; `Item` as ReturnValuesOnConditionCheckFailure
   * returns it): nothing is written.
   */
  cancelNextTransaction(reasons: CancellationReason[]): void;
  /** How many requests per operation reached the proxy. */
  readonly seen: Map<string, number>;
  /**
   * From now on, keep requests (of these operations only, when given; but those on a partition
   * `except` spares, labelled as `partitionOf` names it) waiting, not forwarded, until `release()`.
   */
  hold(operations?: string[], options?: { except?: (partition: string) => boolean }): void;
  /** Resolves with the held requests ("UpdateItem RATE", "Query PET", …) once there are `count`. */
  held(count: number): Promise<string[]>;
  /** Forwards what is held; `stopHolding` also forwards everything after. */
  release(options?: { stopHolding?: boolean }): void;
  close(): Promise<void>;
}

/** One item's reason in a cancelled transaction, in DynamoDB's JSON. */
export interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
  readonly Item?: Record<string, unknown>;
}

interface HeldRequest {
  readonly label: string;
  readonly forward: () => void;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let faults = new Map<string, Fault>();
  let delayMs = 0;
  let nextCancellation: CancellationReason[] | undefined;
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();
  let holding = false;
  let heldOperations: Set<string> | undefined;
  let spared: ((partition: string) => boolean) | undefined;
  let heldRequests: HeldRequest[] = [];
  let heldWaiter: { count: number; resolve: (labels: string[]) => void } | undefined;
  const notifyHeld = () => {
    if (heldWaiter !== undefined && heldRequests.length >= heldWaiter.count) {
      heldWaiter.resolve(heldRequests.map((request) => request.label));
      heldWaiter = undefined;
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    if (holding && (heldOperations === undefined || heldOperations.has(operation))) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (spared?.(partitionOf(body)) === true) {
          forwardBuffered(req, res, body);
          return;
        }
        heldRequests.push({
          label: `${operation} ${partitionOf(body)}`,
          forward: () => forwardBuffered(req, res, body),
        });
        notifyHeld();
      });
      return;
    }
    seen.set(operation, (seen.get(operation) ?? 0) + 1);
    if (operation === 'TransactWriteItems' && nextCancellation !== undefined) {
      answerCancelled(req, res, nextCancellation);
      nextCancellation = undefined;
      return;
    }
    const fault = faults.get(operation);
    if (fault === 'hang') return;
    if (fault === 'reset' || fault === 'reset-once') {
      // Before DynamoDB sees it: the request is lost, nothing was done.
      if (fault === 'reset-once') faults.delete(operation);
      req.socket.destroy();
      return;
    }
    if (fault === 'throttle') {
      answerError(req, res, 'ProvisionedThroughputExceededException', {
        message: 'The level of configured provisioned throughput for the table was exceeded.',
      });
      return;
    }
    if (fault === 'condition-failed') {
      // Without the old item in the answer (a simplification): the writer decides again as for an item it never saw.
      answerError(req, res, 'ConditionalCheckFailedException', { message: 'The conditional request failed' });
      return;
    }
    if (fault === 'write-conflict' || fault === 'write-conflict-once') {
      // As DynamoDB answers a single write to an item a transaction is writing at that moment.
      if (fault === 'write-conflict-once') faults.delete(operation);
      answerError(req, res, 'TransactionConflictException', { message: 'Transaction is ongoing for the item' });
      return;
    }
    if (fault === 'transaction-conflict' || fault === 'transaction-throttled') {
      // As DynamoDB answers a TransactWriteItems whose second item another transaction is writing,
      // or whose items' partition is throttled.
      answerCancelled(
        req,
        res,
        fault === 'transaction-conflict'
          ? [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }]
          : [
              { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' },
              { Code: 'None' },
            ],
      );
      return;
    }
    if (fault === 'slow') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => setTimeout(() => forwardBuffered(req, res, Buffer.concat(chunks)), delayMs));
      return;
    }
    const loseReply = fault === 'lose-reply-once' || fault === 'lose-reply';
    if (fault === 'lose-reply-once') faults.delete(operation);
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (loseReply) {
          // DynamoDB did it; the client never hears so.
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });

  function forwardBuffered(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(body);
  }
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    inject(fault, operations, delay = 0) {
      faults = new Map(operations.map((operation) => [operation, fault]));
      delayMs = delay;
    },
    clear() {
      faults = new Map();
      nextCancellation = undefined;
    },
    cancelNextTransaction(reasons) {
      nextCancellation = reasons;
    },
    hold(operations, options = {}) {
      holding = true;
      heldOperations = operations === undefined ? undefined : new Set(operations);
      spared = options.except;
    },
    held(count) {
      return new Promise((resolve) => {
        heldWaiter = { count, resolve };
        notifyHeld();
      });
    },
    release({ stopHolding = false } = {}) {
      if (stopHolding) holding = false;
      const released = heldRequests;
      heldRequests = [];
      for (const request of released) request.forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** DynamoDB's answer to a request it refused (JSON protocol): nothing was done. */
function answerError(req: IncomingMessage, res: ServerResponse, type: string, fields: Record<string, unknown>): void {
  req.resume();
  res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...fields }));
}

/**
 * DynamoDB's answer to a transaction it cancelled: one reason per item, in order (a test that gives
 * another number of reasons gets a 500 naming its mistake, since DynamoDB never answers so).
 */
function answerCancelled(req: IncomingMessage, res: ServerResponse, reasons: readonly CancellationReason[]): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const items = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { TransactItems?: unknown[] }).TransactItems
      ?.length;
    if (items !== reasons.length) {
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'FaultProxyMisuse' });
      res.end(
        JSON.stringify({
          __type: 'FaultProxyMisuse',
          message: `${reasons.length} cancellation reasons for ${items} items`,
        }),
      );
      return;
    }
    answerError(req, res, 'TransactionCanceledException', {
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
      CancellationReasons: reasons,
    });
  });
}

/** The partition a DynamoDB request is about (`RATE`, `PET`, `APIKEY`, `IDEMPOTENCY`, `index …`), for labels. */
function partitionOf(body: Buffer): string {
  try {
    type Keyed = { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } };
    const request = JSON.parse(body.toString('utf8')) as Keyed & {
      IndexName?: string;
      ExpressionAttributeValues?: { ':pk'?: { S?: string } };
      TransactItems?: { Put?: Keyed }[];
    };
    // A transaction by its first item's (createPet's: the pet).
    const first = request.TransactItems?.[0]?.Put;
    const pk =
      request.Key?.pk?.S ??
      request.Item?.pk?.S ??
      first?.Item?.pk?.S ??
      (request.IndexName !== undefined
        ? `index ${request.IndexName}`
        : (request.ExpressionAttributeValues?.[':pk']?.S ?? '?'));
    // A partition per counter, key, record or shard of pets: labelled by its kind, readable and the same for each.
    return /^(RATE|APIKEY|IDEMPOTENCY|PET)#/.exec(pk)?.[1] ?? pk;
  } catch {
    return '?';
  }
}

/**
 * For a test file whose handlers reach DynamoDB Local through the fault proxy: starts it before
 * the file's server (register this first; the handler modules read DYNAMODB_ENDPOINT once, when
 * first imported), clears its faults after each test and closes it after the file. The returned
 * object is the proxy once the file's set-up has run.
 */
export function faultProxyForThisFile(target: string): FaultProxy {
  const proxy = {} as FaultProxy;
  beforeAll(async () => {
    Object.assign(proxy, await startFaultProxy(target));
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  });
  afterEach(() => proxy.clear());
  afterAll(() => proxy.close());
  return proxy;
}
