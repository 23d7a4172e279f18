import { describe, expect, it } from 'vitest';
import { allows, authorizationsOf, stringLike } from '../../../local/dynamodb-rights';
import { FUNCTIONS, type DataAccess } from '../../../functions/table';

/** The local rights check reads requests as IAM does (the HTTP suite runs every request through it). */
const TABLE = 'pets-table';
const S = (value: string) => ({ S: value });

describe('the local rights check', () => {
  it("matches partition keys as IAM's StringLike does: * any text, ? one character, nothing else special", () => {
    expect(stringLike('RATE#key#*', 'RATE#key#0123abcd')).toBe(true);
    expect(stringLike('RATE#key#*', 'RATE#ip#192.0.2.1')).toBe(false);
    expect(stringLike('PET', 'PET')).toBe(true);
    expect(stringLike('PET', 'PETS')).toBe(false);
    expect(stringLike('PET', 'pet')).toBe(false);
    expect(stringLike('A?C', 'ABC')).toBe(true);
    expect(stringLike('A.C', 'ABC')).toBe(false);
  });

  it('reads the partition key of each kind of request', () => {
    expect(authorizationsOf('GetItem', { TableName: TABLE, Key: { pk: S('PET'), sk: S('1') } })).toEqual([
      { action: 'GetItem', tableName: TABLE, leadingKeys: ['PET'] },
    ]);
    expect(authorizationsOf('PutItem', { TableName: TABLE, Item: { pk: S('APIKEY#h'), sk: S('h') } })).toEqual([
      { action: 'PutItem', tableName: TABLE, leadingKeys: ['APIKEY#h'] },
    ]);
    expect(
      authorizationsOf('Query', {
        TableName: TABLE,
        KeyConditionExpression: '#p = :p AND begins_with(sk, :s)',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':p': S('PET'), ':s': S('0') },
      }),
    ).toEqual([{ action: 'Query', tableName: TABLE, leadingKeys: ['PET'] }]);
    expect(
      authorizationsOf('Query', {
        TableName: TABLE,
        IndexName: 'petsByStatus',
        KeyConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'statusShard' },
        ExpressionAttributeValues: { ':s': S('sold#3') },
      }),
    ).toEqual([{ action: 'Query', tableName: TABLE, indexName: 'petsByStatus', leadingKeys: ['sold#3'] }]);
    // A transaction: each item on its own, as the action of its kind.
    expect(
      authorizationsOf('TransactWriteItems', {
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: S('PET') } } },
          { Put: { TableName: TABLE, Item: { pk: S('IDEMPOTENCY#k#c') } } },
          { ConditionCheck: { TableName: TABLE, Key: { pk: S('SEQUENCE') } } },
        ],
      }),
    ).toEqual([
      { action: 'PutItem', tableName: TABLE, leadingKeys: ['PET'] },
      { action: 'PutItem', tableName: TABLE, leadingKeys: ['IDEMPOTENCY#k#c'] },
      { action: 'ConditionCheckItem', tableName: TABLE, leadingKeys: ['SEQUENCE'] },
    ]);
    expect(
      authorizationsOf('BatchWriteItem', {
        RequestItems: {
          [TABLE]: [{ PutRequest: { Item: { pk: S('PET') } } }, { DeleteRequest: { Key: { pk: S('APIKEY#h') } } }],
        },
      }),
    ).toEqual([{ action: 'BatchWriteItem', tableName: TABLE, leadingKeys: ['PET', 'APIKEY#h'] }]);
    expect(authorizationsOf('DescribeTable', { TableName: TABLE })).toEqual([
      { action: 'DescribeTable', tableName: TABLE, leadingKeys: [] },
    ]);
  });

  it('allows a request only when one right names its action, its resource, and (on the table) every partition key it touches', () => {
    const rights: DataAccess[] = [
      { actions: ['GetItem', 'Query'], items: ['pets'] },
      { actions: ['Query'], index: 'petsByStatus' },
      { actions: ['PutItem'], items: ['pets', 'idempotencyRecords'] },
    ];
    const allowed = (needed: Parameters<typeof allows>[2]) => allows(rights, TABLE, needed);
    expect(allowed({ action: 'GetItem', tableName: TABLE, leadingKeys: ['PET#1'] })).toBe(true);
    expect(allowed({ action: 'GetItem', tableName: TABLE, leadingKeys: ['APIKEY#h'] })).toBe(false);
    expect(allowed({ action: 'UpdateItem', tableName: TABLE, leadingKeys: ['PET#1'] })).toBe(false);
    expect(allowed({ action: 'GetItem', tableName: 'another-table', leadingKeys: ['PET#1'] })).toBe(false);
    expect(allowed({ action: 'Query', tableName: TABLE, indexName: 'petsByStatus', leadingKeys: ['sold#3'] })).toBe(
      true,
    );
    expect(allowed({ action: 'Query', tableName: TABLE, indexName: 'anotherIndex', leadingKeys: ['sold'] })).toBe(
      false,
    );
    // The table's right is not a right on its index, nor the other way round.
    expect(
      allows([{ actions: ['Query'], items: ['pets'] }], TABLE, {
        action: 'Query',
        tableName: TABLE,
        indexName: 'petsByStatus',
        leadingKeys: ['sold#3'],
      }),
    ).toBe(false);
    expect(
      allows([{ actions: ['Query'], index: 'petsByStatus' }], TABLE, {
        action: 'Query',
        tableName: TABLE,
        leadingKeys: ['PET#1'],
      }),
    ).toBe(false);
    // `pets` is every shard (`PET#…`), not the former layout's one partition (`PET`).
    expect(allowed({ action: 'GetItem', tableName: TABLE, leadingKeys: ['PET'] })).toBe(false);
    // Every key must be of a declared kind (ForAllValues).
    expect(allowed({ action: 'PutItem', tableName: TABLE, leadingKeys: ['PET#1', 'IDEMPOTENCY#k#c'] })).toBe(true);
    expect(allowed({ action: 'PutItem', tableName: TABLE, leadingKeys: ['PET#1', 'APIKEY#h'] })).toBe(false);
    // IAM's ForAllValues holds for a request with no partition key (a Scan) once the action is
    // granted, so the whole table: a declaration cannot grant Scan on items at all.
    // @ts-expect-error Scan is not an action on items
    const scanOnPets: DataAccess = { actions: ['Scan'], items: ['pets'] };
    expect(allows([scanOnPets], TABLE, { action: 'Scan', tableName: TABLE, leadingKeys: [] })).toBe(true);
    expect(allowed({ action: 'Scan', tableName: TABLE, leadingKeys: [] })).toBe(false);
    // A Query whose partition key it cannot read is refused, not waved through.
    expect(allowed({ action: 'Query', tableName: TABLE, leadingKeys: 'unreadable' })).toBe(false);
  });

  it('gives the key mirror the key index and the key items, nothing else: its listing is a Query of the index, never a Scan or a Query of the table', () => {
    const rights = FUNCTIONS.keyMirror.dynamodb;
    const mirror = (operation: string, body: Record<string, unknown>) =>
      authorizationsOf(operation, { TableName: TABLE, ...body }).every((needed) => allows(rights, TABLE, needed));
    expect(
      mirror('Query', {
        IndexName: 'registeredKeys',
        KeyConditionExpression: '#r = :r',
        ExpressionAttributeNames: { '#r': 'registry' },
        ExpressionAttributeValues: { ':r': S('keys') },
      }),
    ).toBe(true);
    expect(mirror('Scan', {})).toBe(false);
    expect(mirror('Scan', { IndexName: 'registeredKeys' })).toBe(false);
    expect(
      mirror('Query', { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': S('PET') } }),
    ).toBe(false);
    expect(
      mirror('Query', {
        IndexName: 'petsByStatus',
        KeyConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'statusShard' },
        ExpressionAttributeValues: { ':s': S('sold#3') },
      }),
    ).toBe(false);
    expect(mirror('PutItem', { Item: { pk: S('APIKEY#h'), sk: S('h') } })).toBe(true);
    expect(mirror('DeleteItem', { Key: { pk: S('APIKEY#h'), sk: S('h') } })).toBe(true);
    expect(mirror('DeleteItem', { Key: { pk: S('PET'), sk: S('1') } })).toBe(false);
    // The index's partition key is read as the index names it.
    expect(
      authorizationsOf('Query', {
        TableName: TABLE,
        IndexName: 'registeredKeys',
        KeyConditionExpression: 'registry = :r',
        ExpressionAttributeValues: { ':r': S('keys') },
      })[0]!.leadingKeys,
    ).toEqual(['keys']);
  });

  it("reads a Query's partition key however the condition writes it, and calls any other form unreadable", () => {
    const query = (fields: Record<string, unknown>) =>
      authorizationsOf('Query', {
        TableName: TABLE,
        ExpressionAttributeValues: { ':pk': S('APIKEY#h') },
        ...fields,
      })[0]!.leadingKeys;
    expect(query({ KeyConditionExpression: ':pk = pk' })).toEqual(['APIKEY#h']);
    expect(query({ KeyConditionExpression: '(pk) = :pk' })).toEqual(['APIKEY#h']);
    expect(
      query({ KeyConditionExpression: '( #p = :pk ) AND sk > :pk', ExpressionAttributeNames: { '#p': 'pk' } }),
    ).toEqual(['APIKEY#h']);
    expect(query({ KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [S('APIKEY#h')] } } })).toEqual(
      ['APIKEY#h'],
    );
    expect(query({ KeyConditionExpression: 'begins_with(pk, :pk)' })).toBe('unreadable');
    expect(query({})).toBe('unreadable');
  });

  it('reads a table named by its ARN, and does not break on a body it does not expect', () => {
    expect(
      authorizationsOf('GetItem', {
        TableName: `arn:aws:dynamodb:us-east-1:123456789012:table/${TABLE}`,
        Key: { pk: S('PET') },
      }),
    ).toEqual([{ action: 'GetItem', tableName: TABLE, leadingKeys: ['PET'] }]);
    expect(authorizationsOf('TransactWriteItems', {})).toEqual([]);
    expect(authorizationsOf('BatchWriteItem', { RequestItems: { [TABLE]: 'not a list' } })).toEqual([
      { action: 'BatchWriteItem', tableName: TABLE, leadingKeys: [] },
    ]);
  });
});
