import { describe, expect, it } from 'vitest';
import {
  AUTHORIZER_RESULT_TTL_SECONDS,
  AUTHORIZER_UNAUTHORIZED,
  principalContext,
  principalFromContext,
  REFUSAL_HEADERS,
  stageArnOf,
} from '../../../../shared/auth/authorizer-contract';

/** What the authorizer writes into its context and what the functions read back from `requestContext.authorizer`. */
const KEY_ID = '0123456789abcdef';
const valid = { principalId: KEY_ID, keyId: KEY_ID, plan: 'pro', perMinute: '300', perDay: '10000' } as const;
const MALFORMED = 'the authorizer context does not describe a principal';

describe('principalContext', () => {
  it('writes the key id, the plan and both limits as decimal strings, nothing else', () => {
    expect(
      principalContext({ keyId: KEY_ID, plan: 'enterprise', limits: { perMinute: 5_000, perDay: 1_000_000 } }),
    ).toStrictEqual({
      keyId: KEY_ID,
      plan: 'enterprise',
      perMinute: '5000',
      perDay: '1000000',
    });
  });

  it('is read back as the same principal', () => {
    const principal = {
      keyId: 'fedcba9876543210',
      plan: 'business',
      limits: { perMinute: 1_000, perDay: 100_000 },
    } as const;
    expect(principalFromContext({ principalId: principal.keyId, ...principalContext(principal) })).toStrictEqual(
      principal,
    );
  });
});

describe("the release key's principal", () => {
  const release = {
    keyId: KEY_ID,
    plan: 'business',
    limits: { perMinute: 1_000, perDay: 100_000 },
    petSpace: 'releases',
  } as const;

  it('carries its pet space in the context, as a string, and is read back with it', () => {
    expect(principalContext(release)).toStrictEqual({
      keyId: KEY_ID,
      plan: 'business',
      perMinute: '1000',
      perDay: '100000',
      petSpace: 'releases',
    });
    expect(principalFromContext({ principalId: KEY_ID, ...principalContext(release) })).toStrictEqual(release);
  });

  it.each(['customers', 'RELEASES', '', 'releases ', 1, null])('throws for any other pet space: %j', (petSpace) => {
    expect(() => principalFromContext({ ...valid, petSpace })).toThrow(new Error(MALFORMED));
  });
});

describe('principalFromContext', () => {
  it('reads a well-formed context', () => {
    expect(principalFromContext(valid)).toStrictEqual({
      keyId: KEY_ID,
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10_000 },
    });
  });

  it('reads limits given as numbers (the local server), and counts of up to 16 digits', () => {
    expect(principalFromContext({ ...valid, perMinute: 1, perDay: 999_999_999_999_999 })).toStrictEqual({
      keyId: KEY_ID,
      plan: 'pro',
      limits: { perMinute: 1, perDay: 999_999_999_999_999 },
    });
    expect(principalFromContext({ ...valid, perMinute: '10', perDay: '1234567890123456' })?.limits).toStrictEqual({
      perMinute: 10,
      perDay: 1_234_567_890_123_456,
    });
  });

  it('is undefined without an authorizer context, or without a key id in it', () => {
    expect(principalFromContext(undefined)).toBeUndefined();
    expect(principalFromContext(null)).toBeUndefined();
    expect(principalFromContext({})).toBeUndefined();
    expect(principalFromContext({ principalId: 'address', code: 'rate_limited' })).toBeUndefined();
  });

  const malformedCounts = [
    '0',
    '00',
    '01',
    '0300',
    '-1',
    '-300',
    '+300',
    '1.5',
    '3e2',
    ' 300',
    '300 ',
    'x300',
    '300x',
    '',
    '12345678901234567',
    '99999999999999999',
    'NaN',
    'Infinity',
  ];
  it.each(malformedCounts)('throws for perMinute %j', (perMinute) => {
    expect(() => principalFromContext({ ...valid, perMinute })).toThrow(new Error(MALFORMED));
  });
  it.each(malformedCounts)('throws for perDay %j', (perDay) => {
    expect(() => principalFromContext({ ...valid, perDay })).toThrow(new Error(MALFORMED));
  });

  it.each([0, -1, 1.5, Number.NaN, null, undefined, true, [], {}])('throws for the non-count %s', (value) => {
    expect(() => principalFromContext({ ...valid, perMinute: value })).toThrow(new Error(MALFORMED));
    expect(() => principalFromContext({ ...valid, perDay: value })).toThrow(new Error(MALFORMED));
  });

  it.each([
    '0123456789abcde',
    '0123456789abcdef0',
    '0123456789ABCDEF',
    'g123456789abcdef',
    ' 0123456789abcdef',
    'address',
    '',
  ])('throws for the key id %j, outside its pattern', (keyId) => {
    expect(() => principalFromContext({ ...valid, keyId })).toThrow(new Error(MALFORMED));
  });

  it.each([123, null, true, ['0123456789abcdef']])('throws for the non-string key id %j', (keyId) => {
    expect(() => principalFromContext({ ...valid, keyId })).toThrow(new Error(MALFORMED));
  });

  it.each(['gold', 'Pro', '', 'constructor', undefined, null, 1])('throws for the plan %j', (plan) => {
    expect(() => principalFromContext({ ...valid, plan })).toThrow(new Error(MALFORMED));
  });
});

describe('stageArnOf', () => {
  it('names the stage an Allow covers, from the method the authorizer was asked for, whatever the path', () => {
    const stage = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1';
    expect([stageArnOf(`${stage}/GET/pets`), stageArnOf(`${stage}/GET/pets/7`), stageArnOf(`${stage}/POST/`)]).toEqual([
      stage,
      stage,
      stage,
    ]);
    // No stage in it: the API with an empty stage, which allows nothing real.
    expect(stageArnOf('arn:aws:execute-api:eu-west-1:123456789012:abc123')).toBe(
      'arn:aws:execute-api:eu-west-1:123456789012:abc123/',
    );
  });
});

describe('the rest of the contract', () => {
  it('says what API Gateway needs exactly', () => {
    expect(AUTHORIZER_UNAUTHORIZED).toBe('Unauthorized');
    expect(AUTHORIZER_RESULT_TTL_SECONDS).toBe(30);
    expect(REFUSAL_HEADERS).toStrictEqual({
      'Retry-After': 'retryAfter',
      'X-RateLimit-Limit': 'rateLimitLimit',
      'X-RateLimit-Remaining': 'rateLimitRemaining',
      'X-RateLimit-Reset': 'rateLimitReset',
      'RateLimit-Policy': 'rateLimitPolicy',
      RateLimit: 'rateLimit',
    });
  });
});
