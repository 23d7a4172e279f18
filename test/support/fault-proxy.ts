import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback proxy in front of the real DynamoDB Local that injects the faults a real server
 * will not produce on demand: throttling, a dropped connection or no answer at all, for chosen
 * operations (the `X-Amz-Target` of the DynamoDB JSON protocol, e.g. "PutItem").
 */
export type Fault = 'throttle' | 'reset' | 'hang';

export interface FaultProxy {
  readonly endpoint: string;
  /** Operations answered with a fault; every other request reaches DynamoDB Local. */
  inject(fault: Fault, operations: string[]): void;
  clear(): void;
  /** How many requests per operation reached the proxy. */
  readonly seen: Map<string, number>;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let faults = new Map<string, Fault>();
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    seen.set(operation, (seen.get(operation) ?? 0) + 1);
    const fault = faults.get(operation);
    if (fault === 'hang') return;
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'throttle') {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'ProvisionedThroughputExceededException' });
      res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'The level of configured provisioned throughput for the table was exceeded.',
        }),
      );
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    inject(fault, operations) {
      faults = new Map(operations.map((operation) => [operation, fault]));
    },
    clear() {
      faults = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
