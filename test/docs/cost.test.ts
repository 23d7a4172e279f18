import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ASSUMPTIONS,
  costOf,
  costTable,
  COST_END,
  COST_START,
  readInputs,
  requestLineBytes,
  type Prices,
} from '../../bench/cost';

/** docs/scale-and-cost.md's cost table is what `npm run cost` computes from the committed bench figures and prices. */
const root = resolve(__dirname, '../..');

describe('npm run cost', () => {
  it('the docs show what it computes from bench/results.json and bench/prices.json', () => {
    const { measured, prices } = readInputs(root);
    const page = readFileSync(join(root, 'docs/scale-and-cost.md'), 'utf8');
    const shown = page.slice(page.indexOf(COST_START) + COST_START.length, page.indexOf(COST_END)).trim();
    expect(shown).toBe(costTable(measured, prices).trim());
    expect(prices.region).toMatch(/^[a-z]+-[a-z]+-\d$/);
    expect(prices.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("the mix's shares (bench/cases.ts) add up to all requests", () => {
    expect(Object.values(ASSUMPTIONS.mix).reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 10);
  });

  it('prices each part as the price table says (a create: 4 write units, 5 ms at 512 MB)', () => {
    const prices = {
      apiGatewayRestPerMillion: 3.5,
      lambdaArm64PerGbSecond: 0.0000133334,
      lambdaPerMillionRequests: 0.2,
      dynamoDbOnDemandPerMillionReadUnits: 0.125,
      dynamoDbOnDemandPerMillionWriteUnits: 0.625,
      wafPerMillionRequests: 0.6,
      cloudWatchLogsIngestionPerGb: 0.5,
      xrayPerMillionTracesRecorded: 5,
    } as Prices;
    const measured = {
      endToEndMs: { createPet: { ours: { p50: 4.2 } }, authorizer: { ours: { p50: 0.9 } } },
      dynamoDb: {
        createPet: { ours: { capacityUnits: 4, readUnits: 0 } },
        'authorizer (a known key)': { ours: { capacityUnits: 0.5, readUnits: 0.5 } },
      },
    };
    const cost = costOf('createPet', 'createPet', measured, prices);
    expect(cost.apiGateway).toBe(3.5);
    expect(cost.dynamoDb).toBeCloseTo(4 * 0.625 + 0.05 * 0.5 * 0.125, 10);
    expect(cost.lambda).toBeCloseTo(
      0.2 + 0.005 * 0.5 * 0.0000133334 * 1e6 + 0.05 * (0.2 + 0.001 * 0.5 * 0.0000133334 * 1e6),
      10,
    );
    // The request line is measured from the service's own code: a few hundred bytes, with its metrics.
    expect(requestLineBytes()).toBeGreaterThan(600);
    expect(requestLineBytes()).toBeLessThan(1_000);
  });
});
