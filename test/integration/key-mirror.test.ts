import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayKeySource, PAGE_SIZE } from '../../shared/auth/api-gateway-keys';
import { hashApiKey, keyIdOf } from '../../shared/auth/api-key-hash';
import { KeyRegistry } from '../../shared/auth/key-registry';
import { mirrorKeys, type MirrorReport } from '../../shared/auth/key-mirror';
import { ensureTable } from '../../local/create-table';
import { checkDeclaredRights, runAs } from '../../local/dynamodb-rights';
import { FUNCTIONS, type DataAccess } from '../../functions/table';
import { DynamoDbRateCounterStore } from '../../shared/limits/counter-store';
import { STANDARD_PLAN_LIMITS } from '../../shared/limits/plans';
import { RateLimiter } from '../../shared/limits/rate-limiter';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { testDatabase } from '../support/database';
import { startFakeManagementApi, type FakeManagementApi } from '../support/fake-management-api';

/**
 * The key mirror against a fake of API Gateway's management API (loopback HTTP, API Gateway's
 * JSON, two items a page so that every listing takes several pages) with the real SDK client made
 * as the mirror makes it, writing a registry in a table of its own on DynamoDB Local, with no
 * more rights than its declaration gives it (functions/table.ts; local/dynamodb-rights.ts).
 */
const db = testDatabase();
const target = { apiId: 'api123', stage: 'v1' };
const stage = [target];
/** A usage plan's tags, with the one that lets the mirror read its keys (IAM's tag condition in AWS). */
const tagged = (tags: Record<string, string>) => ({ 'petstore:api-id': target.apiId, ...tags });
let fake: FakeManagementApi;
let registry: KeyRegistry;
let tableName: string;

beforeAll(async () => {
  fake = await startFakeManagementApi(2);
  tableName = `mirror-${randomUUID()}`;
  await ensureTable(db.client, tableName);
  const client = DynamoDBDocumentClient.from(db.client);
  checkDeclaredRights(client);
  registry = new KeyRegistry(client, tableName);

  for (const [id, value, enabled] of [
    ['k-free', 'free-key-value-0001', true],
    ['k-pro-1', 'pro-key-value-0001', true],
    ['k-pro-2', 'pro-key-value-0002', true],
    ['k-pro-3', 'pro-key-value-0003', true],
    ['k-off', 'disabled-key-value', false],
    ['k-ent', 'enterprise-key-value', true],
    ['k-elsewhere', 'other-api-key-value', true],
    ['k-stray', 'stray-key-value', true],
  ] as const) {
    fake.keys.set(id, { id, value, enabled });
  }
  fake.plans.set('p-free', {
    id: 'p-free',
    apiStages: stage,
    tags: tagged({ 'petstore:plan': 'free' }),
    keyIds: ['k-free'],
  });
  fake.plans.set('p-pro', {
    id: 'p-pro',
    apiStages: stage,
    tags: tagged({ 'petstore:plan': 'pro' }),
    keyIds: ['k-pro-1', 'k-pro-2', 'k-pro-3', 'k-off'],
  });
  fake.plans.set('p-ent', {
    id: 'p-ent',
    apiStages: stage,
    tags: tagged({ 'petstore:plan': 'enterprise', 'petstore:per-minute': '12000', 'petstore:per-day': '5000000' }),
    keyIds: ['k-ent'],
  });
  fake.plans.set('p-other-api', {
    id: 'p-other-api',
    apiStages: [{ apiId: 'another-api', stage: 'v1' }],
    tags: { 'petstore:api-id': 'another-api', 'petstore:plan': 'business' },
    keyIds: ['k-elsewhere'],
  });
});

afterAll(() => fake.close());

/** One run of the mirror, as the key mirror function: with its declared rights, or those given. */
async function run(rights: readonly DataAccess[] = FUNCTIONS.keyMirror.dynamodb): Promise<MirrorReport> {
  fake.calls.length = 0;
  const report = await runAs({ functionName: 'keyMirror', rights, tableName }, () =>
    mirrorKeys(new ApiGatewayKeySource(fake.client(), 0), registry, target, Date.now()),
  );
  expect(report.managementCalls).toBe(fake.calls.length);
  return report;
}

/** What the registry holds, by hash, as the request path sees it. */
async function registryContents(): Promise<Record<string, unknown>> {
  const contents: Record<string, unknown> = {};
  for (const entry of await registry.entries())
    contents[entry.keyHash] = { plan: entry.plan, limits: entry.limits, usagePlanId: entry.usagePlanId };
  return contents;
}

const entry = (plan: string, limits: object, usagePlanId: string) => ({ plan, limits, usagePlanId });
const ENTERPRISE = { perMinute: 12_000, perDay: 5_000_000 };
/** Pages of 2 here; an empty listing is one call too. */
const pages = (items: number) => Math.max(1, Math.ceil(items / 2));

describe('the key mirror', () => {
  it("copies the stage's tagged usage plans and their keys, by hash only, in a number of calls set by plans and keys", async () => {
    const report = await run();
    expect(await registryContents()).toEqual({
      [hashApiKey('free-key-value-0001')]: entry('free', STANDARD_PLAN_LIMITS.free, 'p-free'),
      [hashApiKey('pro-key-value-0001')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      [hashApiKey('pro-key-value-0002')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      [hashApiKey('pro-key-value-0003')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      // Disabled in the console, still in its plan: API Gateway itself refuses it on every request.
      [hashApiKey('disabled-key-value')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      [hashApiKey('enterprise-key-value')]: entry('enterprise', ENTERPRISE, 'p-ent'),
    });
    expect(report).toEqual({
      usagePlans: 3,
      keys: 6,
      written: 6,
      removed: 0,
      managementCalls: fake.calls.length,
      problems: [],
    });

    // max(1, ⌈plans/page⌉) + Σ over the stage's plans max(1, ⌈keys/page⌉).
    const planKeyCalls = ['p-ent', 'p-free', 'p-pro'].reduce(
      (sum, id) => sum + pages(fake.plans.get(id)?.keyIds.length ?? 0),
      0,
    );
    expect(fake.calls.length).toBe(pages(fake.plans.size) + planKeyCalls);
    expect(fake.calls.filter((call) => call.startsWith('GET /usageplans?'))).toHaveLength(2);
    expect(fake.calls.every((call) => call.includes(`limit=${PAGE_SIZE}`))).toBe(true);
    // Values only with the stage's plans' keys: the region's key list is never read (its right would give every value).
    expect(fake.calls.some((call) => call.startsWith('GET /apikeys'))).toBe(false);
    expect(fake.calls.some((call) => call.startsWith('GET /usageplans/p-other-api/'))).toBe(false);

    // The request path reads the copy: the same principal as a key made locally would have.
    expect(await registry.resolve('pro-key-value-0002')).toEqual({
      keyId: keyIdOf(hashApiKey('pro-key-value-0002')),
      plan: 'pro',
      limits: STANDARD_PLAN_LIMITS.pro,
    });
    expect(await registry.resolve('other-api-key-value')).toBeUndefined();

    // No key value is stored anywhere: only hashes (the table is the mirror's own: all of it is read).
    const { Items = [] } = await db.documentClient.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true }),
    );
    // Each key in a partition of its own.
    expect(Items.map((item) => item.pk).sort()).toEqual(
      Object.keys(await registryContents())
        .map((hash) => `APIKEY#${hash}`)
        .sort(),
    );
    const stored = JSON.stringify(Items);
    for (const key of fake.keys.values()) expect(stored).not.toContain(key.value);
  });

  it('writes nothing when nothing changed', async () => {
    const before = await registry.entries();
    expect(await run()).toMatchObject({ keys: 6, written: 0, removed: 0, problems: [] });
    expect(await registry.entries()).toEqual(before);
  });

  it('follows a key moved to another plan, a key taken out of its plan, a deleted key and a new one; a disabled key stays for API Gateway to refuse', async () => {
    const pro = fake.plans.get('p-pro')!;
    const free = fake.plans.get('p-free')!;
    pro.keyIds = pro.keyIds.filter((id) => id !== 'k-pro-1' && id !== 'k-pro-2');
    free.keyIds.push('k-pro-1'); // moved to Free; k-pro-2 taken out of every plan
    fake.keys.delete('k-free'); // deleted in the console
    fake.keys.get('k-pro-3')!.enabled = false; // disabled: still in its plan
    fake.keys.set('k-new', { id: 'k-new', value: 'brand-new-key-value', enabled: true });
    fake.plans.get('p-ent')!.keyIds.push('k-new');
    fake.keys.get('k-off')!.enabled = true; // re-enabled: nothing to write

    const report = await run();
    expect(await registryContents()).toEqual({
      [hashApiKey('pro-key-value-0001')]: entry('free', STANDARD_PLAN_LIMITS.free, 'p-free'),
      [hashApiKey('pro-key-value-0003')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      [hashApiKey('disabled-key-value')]: entry('pro', STANDARD_PLAN_LIMITS.pro, 'p-pro'),
      [hashApiKey('enterprise-key-value')]: entry('enterprise', ENTERPRISE, 'p-ent'),
      [hashApiKey('brand-new-key-value')]: entry('enterprise', ENTERPRISE, 'p-ent'),
    });
    // Moved and new are written; deleted and taken out are removed.
    expect(report).toMatchObject({ keys: 5, written: 2, removed: 2, problems: [] });
  });

  it("follows a custom Enterprise plan's new limits", async () => {
    fake.plans.get('p-ent')!.tags = tagged({
      'petstore:plan': 'enterprise',
      'petstore:per-minute': '20000',
      'petstore:per-day': '9000000',
    });
    expect(await run()).toMatchObject({ written: 2, removed: 0, problems: [] });
    expect(await registry.resolve('brand-new-key-value')).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 20_000, perDay: 9_000_000 },
    });
  });

  it("reports a plan of the stage it cannot use, and leaves that plan's keys as the registry holds them rather than revoking them", async () => {
    const before = await registryContents();
    // A tag removed by mistake, an Enterprise limit written "12,000", a plan made without tags.
    fake.plans.get('p-free')!.tags = tagged({});
    fake.plans.get('p-ent')!.tags = tagged({
      'petstore:plan': 'enterprise',
      'petstore:per-minute': '12,000',
      'petstore:per-day': '9000000',
    });
    fake.plans.set('p-untagged', { id: 'p-untagged', apiStages: stage, keyIds: ['k-stray'] });

    const report = await run();
    expect(await registryContents()).toEqual(before);
    expect(await registry.resolve('stray-key-value')).toBeUndefined();
    expect(report).toMatchObject({ usagePlans: 1, written: 0, removed: 0 });
    expect(report.problems).toEqual([
      expect.stringMatching(/^usage plan p-free: its tag petstore:plan .* missing/),
      expect.stringMatching(/^usage plan p-ent: an enterprise plan needs the tags/),
      expect.stringMatching(/^usage plan p-untagged: its tag petstore:api-id must be api123/),
    ]);
    // The unusable plans' keys were listed too (p-pro, p-free, p-ent: two keys each), but not those of
    // a plan without this API's id: the mirror may not read them.
    expect(fake.calls.filter((call) => call.startsWith('GET /usageplans/'))).toHaveLength(
      pages(2) + pages(2) + pages(2),
    );
    expect(fake.calls.some((call) => call.startsWith('GET /usageplans/p-untagged/'))).toBe(false);

    fake.plans.get('p-free')!.tags = tagged({ 'petstore:plan': 'free' });
    fake.plans.get('p-ent')!.tags = tagged({
      'petstore:plan': 'enterprise',
      'petstore:per-minute': '20000',
      'petstore:per-day': '9000000',
    });
    fake.plans.delete('p-untagged');
    expect(await run()).toMatchObject({ written: 0, removed: 0, problems: [] });
  });

  it("does not read the keys of a plan of the stage tagged with another API's id (or none), keeps them as the registry holds them, and reports it", async () => {
    const before = await registryContents();
    const ent = fake.plans.get('p-ent')!;
    const tags = ent.tags;
    // A custom Enterprise plan copied from another API's, its petstore:api-id left as it was.
    ent.tags = { ...tags, 'petstore:api-id': 'another-api' };
    const report = await run();
    expect(await registryContents()).toEqual(before);
    expect(
      Object.values(before).filter((kept) => (kept as { usagePlanId: string }).usagePlanId === 'p-ent'),
    ).toHaveLength(2);
    expect(report).toMatchObject({
      usagePlans: 2,
      written: 0,
      removed: 0,
      problems: [expect.stringMatching(/^usage plan p-ent: its tag petstore:api-id must be api123 \(this API's id\)/)],
    });
    expect(fake.calls.some((call) => call.startsWith('GET /usageplans/p-ent/'))).toBe(false);
    ent.tags = tags;
    expect(await run()).toMatchObject({ written: 0, removed: 0, problems: [] });
  });

  it("keeps a key whose value does not come with its plan's keys, and reports it", async () => {
    const before = await registryContents();
    fake.keys.get('k-new')!.valueMissing = true;
    const report = await run();
    expect(await registryContents()).toEqual(before);
    expect(report).toMatchObject({
      written: 0,
      removed: 0,
      problems: [expect.stringMatching(/^API key k-new of usage plan p-ent came without its value/)],
    });
    fake.keys.get('k-new')!.valueMissing = false;
  });

  it('leaves the last good copy when API Gateway throttles, or when no usage plan of the stage is tagged', async () => {
    const before = await registry.entries();
    fake.failWith = 429;
    try {
      await expect(
        mirrorKeys(new ApiGatewayKeySource(fake.client(), 0), registry, target, Date.now()),
      ).rejects.toMatchObject({ name: 'TooManyRequestsException' });
    } finally {
      fake.failWith = undefined;
    }
    await expect(
      mirrorKeys(new ApiGatewayKeySource(fake.client(), 0), registry, { apiId: 'wrong-api', stage: 'v1' }, Date.now()),
    ).rejects.toThrow(/no usage plan/);
    expect(await registry.entries()).toEqual(before);
  });

  it('never lets an earlier run undo what a later one wrote (runs may overlap)', async () => {
    const later = Date.now() + 60_000;
    const keyHash = hashApiKey('brand-new-key-value');
    expect(
      await registry.putMirrored(
        { keyHash, plan: 'business', limits: STANDARD_PLAN_LIMITS.business, apiKeyId: 'k-new', usagePlanId: 'p-biz' },
        later,
      ),
    ).toBe(true);
    expect(
      await registry.putMirrored(
        { keyHash, plan: 'free', limits: STANDARD_PLAN_LIMITS.free, apiKeyId: 'k-new', usagePlanId: 'p-free' },
        later - 1,
      ),
    ).toBe(false);
    expect(await registry.removeMirrored(keyHash, later - 1)).toBe(false);
    expect((await registry.resolve('brand-new-key-value'))?.plan).toBe('business');
    expect(await registry.removeMirrored(keyHash, later)).toBe(true);
  });

  it('runs with its declared rights only: without DeleteItem on the registry, removing a key is refused as AWS refuses it', async () => {
    const free = fake.plans.get('p-free')!;
    const taken = free.keyIds.pop()!;
    const withoutDelete = FUNCTIONS.keyMirror.dynamodb.map(
      (right): DataAccess =>
        'index' in right ? right : { ...right, actions: right.actions.filter((action) => action !== 'DeleteItem') },
    );
    try {
      await expect(run(withoutDelete)).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('grants no dynamodb:DeleteItem'),
      });
      // The same run with the declared rights removes it.
      expect(await run()).toMatchObject({ removed: 1, problems: [] });
    } finally {
      free.keyIds.push(taken);
      await run();
    }
  });

  it('lists the registry through its index alone, never a Scan: pets and idempotency records beside the keys are neither read nor removed, a revoked key is', async () => {
    const pets = new DynamoDbPetRepository(db.client, tableName);
    const pet = await pets.create({ name: 'Beside the keys', categoryId: 1, status: 'available' });
    await pets.createOnce(
      { name: 'Recorded beside the keys', categoryId: 1, status: 'available' },
      { owner: '0123456789abcdef', value: 'beside' },
    );
    const free = fake.plans.get('p-free')!;
    const taken = free.keyIds.pop()!;
    // Query on the key index, writes on key items: no Query or Scan of the table.
    const indexOnly: DataAccess[] = [
      { actions: ['Query'], index: 'registeredKeys' },
      { actions: ['PutItem', 'DeleteItem'], items: ['keyRegistry'] },
    ];
    try {
      expect(await run(indexOnly)).toMatchObject({ removed: 1, problems: [] });
      expect(await registry.resolve(fake.keys.get(taken)!.value)).toBeUndefined();
      expect(await pets.get(pet.id)).toEqual(pet);
      expect(
        (
          await pets.createOnce(
            { name: 'Recorded beside the keys', categoryId: 1, status: 'available' },
            { owner: '0123456789abcdef', value: 'beside' },
          )
        ).replayed,
      ).toBe(true);
    } finally {
      free.keyIds.push(taken);
      await run();
    }
  });

  it('spaces its calls out', async () => {
    const source = new ApiGatewayKeySource(fake.client(), 50);
    const started = Date.now();
    await source.usagePlans(); // 2 pages: one wait of 50 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(source.calls).toBe(2);
  });
});

describe("the stage's release key", () => {
  it("is copied as the one key of the releases' pet space (its id named to the mirror), in its plan like any key; the others are not", async () => {
    fake.keys.set('k-release', { id: 'k-release', value: 'release-key-value', enabled: true });
    fake.keys.set('k-business', { id: 'k-business', value: 'business-key-value', enabled: true });
    const business = {
      id: 'p-business',
      apiStages: stage,
      tags: tagged({ 'petstore:plan': 'business' }),
      keyIds: ['k-business', 'k-release'],
    };
    fake.plans.set('p-business', business);
    try {
      await runAs({ functionName: 'keyMirror', rights: FUNCTIONS.keyMirror.dynamodb, tableName }, () =>
        mirrorKeys(
          new ApiGatewayKeySource(fake.client(), 0),
          registry,
          { ...target, releaseApiKeyId: 'k-release' },
          Date.now(),
        ),
      );
      expect(await registry.resolve('release-key-value')).toEqual({
        keyId: keyIdOf(hashApiKey('release-key-value')),
        plan: 'business',
        limits: STANDARD_PLAN_LIMITS.business,
        petSpace: 'releases',
      });
      expect(await registry.resolve('business-key-value')).toEqual({
        keyId: keyIdOf(hashApiKey('business-key-value')),
        plan: 'business',
        limits: STANDARD_PLAN_LIMITS.business,
      });
      const key = { pk: `APIKEY#${hashApiKey('release-key-value')}`, sk: hashApiKey('release-key-value') };
      const { Item } = await db.documentClient.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      );
      expect(Item?.petSpace).toBe('releases');
      // Its entry lost its pet space (written by a mirror that did not know the key): the next run puts it back, as it writes the release key every run.
      await db.documentClient.send(
        new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: 'REMOVE petSpace' }),
      );
      expect((await registry.resolve('release-key-value'))?.petSpace).toBeUndefined();
      const again = await runAs({ functionName: 'keyMirror', rights: FUNCTIONS.keyMirror.dynamodb, tableName }, () =>
        mirrorKeys(
          new ApiGatewayKeySource(fake.client(), 0),
          registry,
          { ...target, releaseApiKeyId: 'k-release' },
          Date.now(),
        ),
      );
      expect(again.written).toBe(1);
      expect((await registry.resolve('release-key-value'))?.petSpace).toBe('releases');
    } finally {
      fake.plans.delete('p-business');
      fake.keys.delete('k-release');
      fake.keys.delete('k-business');
      await run();
    }
    expect(await registry.resolve('release-key-value')).toBeUndefined();
  });
});

describe('a custom Enterprise plan above one partition (issue 41)', () => {
  it('is counted on shards once the mirror copies it, without a deploy; lowered below the threshold, on one item from the next day', async () => {
    // The limiter as deployed: the default threshold (30,000 a minute), on this table.
    let nowMs = Date.UTC(2026, 10, 22, 22, 0, 0);
    const limiter = new RateLimiter(new DynamoDbRateCounterStore(db.client, tableName), () => nowMs);
    const ent = fake.plans.get('p-ent')!;
    const tags = ent.tags;
    const counterItem = async (pk: string) =>
      (
        await db.documentClient.send(
          new GetCommand({ TableName: tableName, Key: { pk, sk: 'counters' }, ConsistentRead: true }),
        )
      ).Item;
    try {
      ent.tags = tagged({
        'petstore:plan': 'enterprise',
        'petstore:per-minute': '120000',
        'petstore:per-day': '100000000',
      });
      expect(await run()).toMatchObject({ problems: [] });
      const principal = (await registry.resolve('enterprise-key-value'))!;
      expect(principal.limits).toEqual({ perMinute: 120_000, perDay: 100_000_000 });
      const subject = `key#${principal.keyId}`;
      expect((await limiter.check(subject, principal.limits)).status).toMatchObject({ limit: 120_000 });
      // 120,000 a minute: 4 shards of 30,000 (500 a second each at the plan's full rate).
      expect(await counterItem(`RATE#${subject}`)).toMatchObject({ shards: 4 });

      ent.tags = tagged({
        'petstore:plan': 'enterprise',
        'petstore:per-minute': '12000',
        'petstore:per-day': '5000000',
      });
      expect(await run()).toMatchObject({ problems: [] });
      const lowered = (await registry.resolve('enterprise-key-value'))!;
      expect(lowered.limits).toEqual({ perMinute: 12_000, perDay: 5_000_000 });
      // The same day: still on the day's shards, each with its share of the new limits (3,000).
      nowMs += 60_000;
      expect((await limiter.check(subject, lowered.limits)).status).toMatchObject({
        limit: 12_000,
        remaining: 12_000 - 4,
      });
      expect(await counterItem(`RATE#${subject}`)).toMatchObject({ shards: 4 });
      // The next day: one item.
      nowMs = Date.UTC(2026, 10, 23, 0, 0, 1);
      expect((await limiter.check(subject, lowered.limits)).status).toMatchObject({ limit: 12_000, remaining: 11_999 });
      const keyItem = await counterItem(`RATE#${subject}`);
      expect(keyItem).toMatchObject({ minuteCount: 1, dayCount: 1 });
      expect(keyItem?.shards).toBeUndefined();
    } finally {
      ent.tags = tags;
      await run();
    }
  });
});
