import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of DynamoDB Local that records every DynamoDB request a handler
 * makes: which operation, when it was sent and answered, and the capacity it consumed (it adds
 * `ReturnConsumedCapacity: TOTAL` to each request; DynamoDB Local does not check signatures).
 */
export interface RecordedCall {
  readonly operation: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly capacityUnits: number;
  readonly scannedCount: number | undefined;
}

export interface DynamoDbRecorder {
  readonly endpoint: string;
  /** The calls since the last take, and forget them. */
  take(): RecordedCall[];
  close(): Promise<void>;
}

export async function startRecorder(target: string): Promise<DynamoDbRecorder> {
  const upstream = new URL(target);
  let calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      const body = Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const startedAt = performance.now();
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            const text = Buffer.concat(answerChunks);
            // A transaction answers with one ConsumedCapacity per table, as an array.
            let parsed: {
              ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
              ScannedCount?: number;
            } = {};
            try {
              parsed = JSON.parse(text.toString('utf8'));
            } catch {
              // not JSON: recorded without capacity
            }
            calls.push({
              operation,
              startedAt,
              endedAt: performance.now(),
              capacityUnits: [parsed.ConsumedCapacity ?? []]
                .flat()
                .reduce((sum, consumed) => sum + (consumed.CapacityUnits ?? 0), 0),
              scannedCount: parsed.ScannedCount,
            });
            res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(text.length) });
            res.end(text);
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const taken = calls;
      calls = [];
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Round trips waited: calls that overlap count once (they were in flight together). */
export function roundTripsOf(calls: readonly RecordedCall[]): number {
  let trips = 0;
  let waveEnd = -Infinity;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    if (call.startedAt >= waveEnd) {
      trips += 1;
      waveEnd = call.endedAt;
    } else {
      waveEnd = Math.max(waveEnd, call.endedAt);
    }
  }
  return trips;
}
