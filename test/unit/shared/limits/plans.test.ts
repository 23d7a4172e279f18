import { describe, expect, it } from 'vitest';
import {
  ENTERPRISE_TEMPLATE_LIMITS,
  isPlanName,
  isRateLimits,
  PLAN_NAMES,
  STANDARD_PLAN_LIMITS,
} from '../../../../shared/limits/plans';

/** The plan table (docs: the plans of the pet store interface) and the checks of what is read back as a plan or limits. */
describe('the plan table', () => {
  it('names the four plans, in order', () => {
    expect(PLAN_NAMES).toEqual(['free', 'pro', 'business', 'enterprise']);
  });

  it('gives each standard plan its limits exactly, and the enterprise template its own', () => {
    expect(STANDARD_PLAN_LIMITS).toStrictEqual({
      free: { perMinute: 60, perDay: 1_000 },
      pro: { perMinute: 300, perDay: 10_000 },
      business: { perMinute: 1_000, perDay: 100_000 },
    });
    expect(ENTERPRISE_TEMPLATE_LIMITS).toStrictEqual({ perMinute: 5_000, perDay: 1_000_000 });
  });
});

describe('isPlanName', () => {
  it.each(['free', 'pro', 'business', 'enterprise'])('accepts %j', (name) => {
    expect(isPlanName(name)).toBe(true);
  });

  it.each([
    'Free',
    'PRO',
    'Enterprise',
    '',
    ' free',
    'free ',
    'gold',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
    'length',
  ])('refuses %j', (name) => {
    expect(isPlanName(name)).toBe(false);
  });

  it.each([undefined, null, 0, 1, true, {}, ['free'], { toString: () => 'free' }])(
    'refuses the non-string %j',
    (value) => {
      expect(isPlanName(value)).toBe(false);
    },
  );
});

describe('isRateLimits', () => {
  it.each([
    { perMinute: 1, perDay: 1 },
    { perMinute: 60, perDay: 1_000 },
    { perMinute: Number.MAX_SAFE_INTEGER, perDay: Number.MAX_SAFE_INTEGER },
    { perMinute: 7, perDay: 70, extra: 'ignored' },
  ])('accepts %j', (limits) => {
    expect(isRateLimits(limits)).toBe(true);
  });

  it.each([undefined, null, 0, 60, 'limits', true, () => ({ perMinute: 1, perDay: 1 })])(
    'refuses %j, no object',
    (value) => {
      expect(isRateLimits(value)).toBe(false);
    },
  );

  // Each bad value in either place, the other one valid: both must be positive safe integers.
  const bad: unknown[] = [
    0,
    -1,
    1.5,
    0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER + 1,
    2 ** 60,
    '5',
    '60',
    true,
    null,
    undefined,
    5n,
    [5],
    {},
  ];
  it.each(bad)('refuses perMinute %s', (value) => {
    expect(isRateLimits({ perMinute: value, perDay: 1_000 })).toBe(false);
  });
  it.each(bad)('refuses perDay %s', (value) => {
    expect(isRateLimits({ perMinute: 60, perDay: value })).toBe(false);
  });

  it('refuses an object missing either limit, or both', () => {
    expect(isRateLimits({})).toBe(false);
    expect(isRateLimits({ perMinute: 60 })).toBe(false);
    expect(isRateLimits({ perDay: 1_000 })).toBe(false);
    expect(isRateLimits([])).toBe(false);
  });

  it('refuses a function, even one with both limits as properties: limits are a plain object', () => {
    expect(isRateLimits(Object.assign(() => undefined, { perMinute: 60, perDay: 1_000 }))).toBe(false);
  });
});
