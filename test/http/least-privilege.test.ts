import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '../../infra/bundling';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  DECLARED_RIGHTS,
  loadFunctionHandlers,
  startLocalServer,
  type LocalServer,
  type ServedRights,
} from '../../local/server';
import { FUNCTION_NAMES, FUNCTIONS, type DataAccess } from '../../functions/table';
import { setLogSink } from '../../shared/log';
import { send, TEST_KEY } from '../support/api';

/**
 * The local server runs each function with its declared DynamoDB rights (functions/table.ts, the
 * ones the stack grants): a request outside them is refused as AWS refuses it (AccessDeniedException,
 * our 500, a log line naming the right), and the same request within them passes. The whole HTTP
 * suite runs through the same check, with the rights as declared.
 */
let lines: string[] = [];
let restoreSink: ReturnType<typeof setLogSink>;
beforeAll(() => {
  restoreSink = setLogSink((line) => lines.push(line));
});
afterAll(() => {
  setLogSink(restoreSink);
});

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  lines = [];
});

/** The declared rights, with one right of one function taken away. */
function without(
  functionName: keyof ServedRights,
  remove: (right: DataAccess) => DataAccess | undefined,
): ServedRights {
  const rights = DECLARED_RIGHTS[functionName].map(remove).filter((right): right is DataAccess => right !== undefined);
  return { ...DECLARED_RIGHTS, [functionName]: rights };
}

/** A table right without one action (or gone, when it had only that one). */
const withoutAction = (action: string, items: string) => (right: DataAccess) => {
  if (!('items' in right) || !right.items.includes(items as never)) return right;
  const actions = right.actions.filter((candidate) => candidate !== action);
  return actions.length === 0 ? undefined : { ...right, actions };
};

async function serve(rights?: ServedRights): Promise<string> {
  server = await startLocalServer({ port: 0, ...(rights ? { rights } : {}) });
  return server.baseUrl;
}

const requestLines = () =>
  lines.map((line) => JSON.parse(line) as Record<string, any>).filter((entry) => entry.msg === 'request');

describe('the local rights check', () => {
  it('checks with the declared rights when given none: the docs function, declared with no DynamoDB right, is refused any read', async () => {
    const { documentClient } = await import('../../shared/dynamodb/document-client');
    const { config } = await import('../../shared/config');
    const handlers = await loadFunctionHandlers();
    // The docs function, replaced by one that reads a pet and tells what happened.
    const apiDocs = async () => {
      try {
        await documentClient.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'PET', sk: '1' } }));
        return { statusCode: 200, body: 'read' };
      } catch (error) {
        return { statusCode: 200, body: `${(error as Error).name}: ${(error as Error).message}` };
      }
    };
    server = await startLocalServer({ port: 0, handlers: { ...handlers, apiDocs } });
    const answer = await fetch(`${server.baseUrl}/openapi.json`);
    expect(await answer.text()).toMatch(
      /^AccessDeniedException: .*the declaration of apiDocs in functions\/table.ts grants no dynamodb:GetItem on table/,
    );
    // The same read outside any function (a test's set-up) is not checked.
    await expect(
      documentClient.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'PET', sk: '1' } })),
    ).resolves.toBeDefined();
  });

  it('createPet without PutItem on pets: a 500, and the log line names the missing right; with it, 201', async () => {
    const refused = await send(await serve(without('createPet', withoutAction('PutItem', 'pets'))), 'POST', '/pets', {
      body: { name: 'Rex', categoryId: 1 },
    });
    expect(refused.status).toBe(500);
    expect(refused.body.code).toBe('internal_error');
    const [line] = requestLines();
    expect(line).toMatchObject({ operation: 'createPet', status: 500 });
    expect(line!.error.name).toBe('AccessDeniedException');
    expect(line!.error.message).toContain(
      'is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:',
    );
    expect(line!.error.message).toContain(
      'the declaration of createPet in functions/createPet/operation.ts grants no dynamodb:PutItem on table',
    );
    expect(line!.error.message).toMatch(/for partition key "PET#[0-7]"/);
    await server!.close();
    server = undefined;
    lines = [];

    const created = await send(await serve(), 'POST', '/pets', { body: { name: 'Rex', categoryId: 1 } });
    expect(created.status).toBe(201);
  });

  it('a transaction is authorized item by item: without PutItem on idempotency records, a create with an Idempotency-Key fails and one without passes', async () => {
    const baseUrl = await serve(
      without('createPet', (right) =>
        'items' in right && right.actions.includes('PutItem') ? { ...right, items: ['pets'] } : right,
      ),
    );
    const plain = await send(baseUrl, 'POST', '/pets', { body: { name: 'Plain', categoryId: 1 } });
    expect(plain.status).toBe(201);
    const keyed = await send(baseUrl, 'POST', '/pets', {
      body: { name: 'Keyed', categoryId: 1 },
      headers: { 'Idempotency-Key': 'least-privilege-1' },
    });
    expect(keyed.status).toBe(500);
    expect(requestLines().at(-1)!.error.message).toMatch(
      /grants no dynamodb:PutItem on table \S+ for partition key "IDEMPOTENCY#/,
    );
  });

  it('getPet without GetItem on pets: 500; listPets, which only queries, still answers', async () => {
    const baseUrl = await serve(without('getPet', withoutAction('GetItem', 'pets')));
    expect((await send(baseUrl, 'GET', '/pets?limit=1')).status).toBe(200);
    expect((await send(baseUrl, 'GET', '/pets/1')).status).toBe(500);
    expect(requestLines().at(-1)!.error.message).toContain('dynamodb:GetItem');
  });

  it('listPets by status needs Query on the status index, not only on the pets', async () => {
    const baseUrl = await serve(
      without('listPets', (right) => ('index' in right && right.index === 'petsByStatus' ? undefined : right)),
    );
    expect((await send(baseUrl, 'GET', '/pets?limit=1')).status).toBe(200);
    expect((await send(baseUrl, 'GET', '/pets?status=available')).status).toBe(500);
    expect(requestLines().at(-1)!.error.message).toMatch(
      /grants no dynamodb:Query on index petsByStatus for partition key "available#[0-7]"/,
    );
  });

  it("listPets without a filter needs Query on the listing index too: pages read the table's shards and petsById's in turn", async () => {
    const baseUrl = await serve(
      without('listPets', (right) => ('index' in right && right.index === 'petsById' ? undefined : right)),
    );
    const statuses = [
      (await send(baseUrl, 'GET', '/pets?limit=1')).status,
      (await send(baseUrl, 'GET', '/pets?limit=1')).status,
    ];
    expect(statuses.sort()).toEqual([200, 500]);
    expect(
      requestLines()
        .filter((line) => line.status === 500)
        .map((line) => line.error.message),
    ).toEqual([expect.stringMatching(/grants no dynamodb:Query on index petsById for partition key "pets#[0-7]"/)]);
  });

  it('an operation without its counter right fails before any answer: the rate limiter counts every request', async () => {
    const baseUrl = await serve(
      without('getPet', (right) => ('items' in right && right.items.includes('keyCounters') ? undefined : right)),
    );
    const response = await send(baseUrl, 'GET', '/pets/1');
    expect(response.status).toBe(500);
    expect(requestLines().at(-1)!.error.message).toMatch(
      /dynamodb:UpdateItem on table \S+ for partition key "RATE#key#/,
    );
  });

  it("the authorizer runs with its own rights: without the key registry it cannot allow a key (API Gateway's 503), with them it does", async () => {
    const refused = await send(
      await serve(
        without('authorizer', (right) => ('items' in right && right.items.includes('keyRegistry') ? undefined : right)),
      ),
      'GET',
      '/pets?limit=1',
      { key: TEST_KEY, responder: 'gateway' },
    );
    expect(refused.status).toBe(503);
    await server!.close();
    server = undefined;
    expect((await send(await serve(), 'GET', '/pets?limit=1')).status).toBe(200);
  });

  it('costs nothing in AWS: no function bundle contains the check, or anything else of local/', async () => {
    const root = join(import.meta.dirname, '..', '..');
    for (const name of FUNCTION_NAMES) {
      const result = await build({
        ...esbuildOptionsFor(join(root, FUNCTIONS[name].handler), join(root, 'bench', '.build', 'unused.mjs')),
        write: false,
        metafile: true,
      });
      const inputs = Object.keys(result.metafile?.inputs ?? {});
      expect(inputs.some((input) => input.startsWith('shared/'))).toBe(true);
      expect([name, inputs.filter((input) => input.startsWith('local/'))]).toEqual([name, []]);
    }
  }, 60_000);
});
