import { afterEach, describe, expect, it } from 'vitest';
import { clientFor, isInAws, namedTarget, ownTarget } from '../../../local/dynamodb-target';
import { isAwsEndpoint } from '../../../shared/dynamodb/aws-endpoint';
import { createDynamoDbClient } from '../../../shared/dynamodb/client';

/**
 * Which DynamoDB npm start and npm run keys use, and how they sign: AWS's endpoints with the usual
 * credentials in the shell's region, anything else as DynamoDB Local in the fixed local region;
 * and the handlers' client by the same rule. (npm start on a DynamoDB Local:
 * test/http/local-start-external-dynamodb.test.ts.)
 */
const AWS = 'https://dynamodb.eu-west-1.amazonaws.com';
const saved = { ...process.env };

afterEach(() => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('the DynamoDB of npm start and npm run keys', () => {
  it.each([
    [AWS, true],
    ['https://vpce-1a2b3c4d-5e6f.dynamodb.eu-west-1.vpce.amazonaws.com', true],
    ['https://dynamodb.cn-north-1.amazonaws.com.cn', true],
    ['https://dynamodb.us-east-1.api.aws', true],
    ['http://localhost:8000', false],
    ['http://127.0.0.1:8000', false],
    ['http://dynamodb-local:8000', false],
    ['http://amazonaws.com.example.org:8000', false],
    ['https://amazonaws.com', true],
    ['https://evilamazonaws.com', false],
    ['https://dynamodb.example-api.aws.example.org', false],
    ['not a url', false],
  ])("%s is an endpoint of AWS's: %s", (endpoint, inAws) => {
    expect(isAwsEndpoint(endpoint)).toBe(inAws);
  });

  it('with no DYNAMODB_ENDPOINT, none is named (npm start runs its own DynamoDB Local)', () => {
    expect(namedTarget({})).toBeUndefined();
    expect(namedTarget({ DYNAMODB_ENDPOINT: '', TABLE_NAME: 'other' })).toBeUndefined();
  });

  it("another DynamoDB Local: the fixed local region whatever the shell's, DYNAMODB_LOCAL_ACCESS_KEY_ID or `local`, TABLE_NAME or petstore-local; demo keys", () => {
    const target = namedTarget({ DYNAMODB_ENDPOINT: 'http://localhost:8000', AWS_REGION: 'eu-west-1' });
    expect(target).toEqual({
      endpoint: 'http://localhost:8000',
      tableName: 'petstore-local',
      region: 'us-east-1',
      localAccessKey: 'local',
    });
    expect(isInAws(target!)).toBe(false);
    expect(
      namedTarget({
        DYNAMODB_ENDPOINT: 'http://localhost:8000',
        TABLE_NAME: 'mine',
        DYNAMODB_LOCAL_ACCESS_KEY_ID: 'myKey',
      }),
    ).toMatchObject({ tableName: 'mine', localAccessKey: 'myKey' });
  });

  it("a table in AWS: the shell's region, the usual credentials (never the DynamoDB Local key), no demo keys", () => {
    const target = namedTarget({
      DYNAMODB_ENDPOINT: AWS,
      AWS_REGION: 'eu-west-1',
      DYNAMODB_LOCAL_ACCESS_KEY_ID: 'myKey',
      TABLE_NAME: 'dev-pets',
    });
    expect(target).toEqual({ endpoint: AWS, tableName: 'dev-pets', region: 'eu-west-1', localAccessKey: undefined });
    expect(isInAws(target!)).toBe(true);
    expect(namedTarget({ DYNAMODB_ENDPOINT: AWS, AWS_DEFAULT_REGION: 'eu-west-1' })?.region).toBe('eu-west-1');
  });

  it("npm start's own DynamoDB Local: its access key, the local region and table", () => {
    expect(ownTarget('http://127.0.0.1:4567', 'abc123')).toEqual({
      endpoint: 'http://127.0.0.1:4567',
      tableName: 'petstore-local',
      region: 'us-east-1',
      localAccessKey: 'abc123',
    });
  });

  it.each(['localhost:8000', 'ftp://localhost', 'http://', 'dynamodb.eu-west-1.amazonaws.com'])(
    'refuses DYNAMODB_ENDPOINT=%s in one line',
    (endpoint) => {
      expect(() => namedTarget({ DYNAMODB_ENDPOINT: endpoint })).toThrow(
        `DYNAMODB_ENDPOINT must be an http:// or https:// URL, e.g. http://localhost:8000; got "${endpoint}".`,
      );
    },
  );

  it("signs for AWS with the usual credentials, and for DynamoDB Local with its key: the set-up client and the handlers' alike", async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const aws = namedTarget({ DYNAMODB_ENDPOINT: AWS, AWS_REGION: 'eu-west-1' })!;
    const local = namedTarget({ DYNAMODB_ENDPOINT: 'http://localhost:8000', DYNAMODB_LOCAL_ACCESS_KEY_ID: 'myKey' })!;
    const accessKeyOf = async (client: { config: { credentials: () => Promise<{ accessKeyId: string }> } }) =>
      (await client.config.credentials()).accessKeyId;

    expect(await accessKeyOf(clientFor(aws))).toBe('AKIAIOSFODNN7EXAMPLE');
    expect(await accessKeyOf(clientFor(local))).toBe('myKey');
    expect(
      await accessKeyOf(
        createDynamoDbClient({ region: 'eu-west-1', dynamoDbEndpoint: AWS, dynamoDbAccessKeyId: 'myKey' }),
      ),
    ).toBe('AKIAIOSFODNN7EXAMPLE');
    expect(
      await accessKeyOf(
        createDynamoDbClient({
          region: 'us-east-1',
          dynamoDbEndpoint: 'http://localhost:8000',
          dynamoDbAccessKeyId: 'myKey',
        }),
      ),
    ).toBe('myKey');
    // Lambda's path, unchanged: no endpoint, the usual credentials.
    expect(await accessKeyOf(createDynamoDbClient({ region: 'eu-west-1', dynamoDbEndpoint: undefined }))).toBe(
      'AKIAIOSFODNN7EXAMPLE',
    );
  });
});
