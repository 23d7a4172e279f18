import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Secrets Manager has no local emulator, so this loopback server answers GetSecretValue (AWS JSON
 * 1.1, as the real SDK client sends it) for one secret holding a plain string, by its version
 * stage as Secrets Manager does: AWSCURRENT (the default) and AWSPREVIOUS, which exists only after
 * a rotation. `rotate` does what `aws secretsmanager put-secret-value` does to the labels. It can
 * fail (an HTTP status and error type, e.g. 500 or throttling), hang (never answer), and it counts
 * every call by stage. The tests and the bench (cold starts read the secret from it) use it.
 */
export type SecretsManagerFault = 'internal-error' | 'throttle' | 'hang';

export interface FakeSecretsManager {
  readonly endpoint: string;
  readonly secretArn: string;
  /** The value labelled AWSCURRENT now. */
  readonly current: string;
  /** The value labelled AWSPREVIOUS now (none before the first rotation). */
  readonly previous: string | undefined;
  /** Every GetSecretValue call, by the stage asked for ("AWSCURRENT", "AWSPREVIOUS"), faulty ones included. */
  readonly calls: string[];
  /** A new current value; the old one becomes AWSPREVIOUS, the one before loses its label. */
  rotate(value?: string): string;
  /** Answer every call with this fault until `heal()`. */
  fail(fault: SecretsManagerFault): void;
  heal(): void;
  close(): Promise<void>;
}

const FAULTS: Record<Exclude<SecretsManagerFault, 'hang'>, { status: number; type: string; message: string }> = {
  'internal-error': { status: 500, type: 'InternalServiceError', message: 'An error occurred on the server side.' },
  throttle: { status: 400, type: 'ThrottlingException', message: 'Rate exceeded' },
};

export async function startFakeSecretsManager(
  initial = randomSecret(),
  name = 'petstore-cursor-secret',
): Promise<FakeSecretsManager> {
  const secretArn = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}-AbCdEf`;
  let current = { value: initial, versionId: randomUUID() };
  let previous: typeof current | undefined;
  let fault: SecretsManagerFault | undefined;
  const calls: string[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      let input: { SecretId?: string; VersionStage?: string; VersionId?: string } = {};
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as typeof input;
      } catch {
        return answerError(res, 400, 'SerializationException', 'The request body is not JSON.');
      }
      if (target !== 'secretsmanager.GetSecretValue')
        return answerError(res, 400, 'UnknownOperationException', `${target} is not faked`);
      const stage = input.VersionStage ?? 'AWSCURRENT';
      calls.push(stage);
      if (fault === 'hang') return;
      if (fault !== undefined) return answerError(res, FAULTS[fault].status, FAULTS[fault].type, FAULTS[fault].message);
      if (input.SecretId !== secretArn && input.SecretId !== name)
        return answerError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      const version = stage === 'AWSCURRENT' ? current : stage === 'AWSPREVIOUS' ? previous : undefined;
      if (version === undefined || input.VersionId !== undefined) {
        return answerError(
          res,
          400,
          'ResourceNotFoundException',
          `Secrets Manager can't find the specified secret value for staging label: ${stage}`,
        );
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
      res.end(
        JSON.stringify({
          ARN: secretArn,
          Name: name,
          VersionId: version.versionId,
          SecretString: version.value,
          VersionStages: [stage],
          CreatedDate: Date.now() / 1000,
        }),
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    secretArn,
    get current() {
      return current.value;
    },
    get previous() {
      return previous?.value;
    },
    calls,
    rotate(value = randomSecret()) {
      previous = current;
      current = { value, versionId: randomUUID() };
      return value;
    },
    fail(next) {
      fault = next;
    },
    heal() {
      fault = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** As CloudFormation generates the stack's secret: 48 letters and digits. */
export function randomSecret(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 48 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

function answerError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(JSON.stringify({ __type: type, message }));
}
