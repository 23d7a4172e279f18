import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * A client of `endpoint` that records the commands it sends (`PutItem`, ...) and their inputs, and
 * lets a test act around each attempt on its way to DynamoDB Local (inside the SDK's retries: the
 * `deserialize` step runs once per attempt); `send` sends the attempt.
 */
export function instrumentedClient(
  endpoint: string,
  aroundAttempt: (command: string, input: Record<string, unknown>, send: () => Promise<unknown>) => Promise<unknown> = (
    _,
    __,
    send,
  ) => send(),
) {
  const sent: string[] = [];
  const inputs: { command: string; input: Record<string, unknown> }[] = [];
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      sent.push(command);
      inputs.push({ command, input: args.input as Record<string, unknown> });
      return (await aroundAttempt(command, args.input as Record<string, unknown>, () => next(args))) as Awaited<
        ReturnType<typeof next>
      >;
    },
    { step: 'deserialize' },
  );
  return { client, sent, inputs };
}
