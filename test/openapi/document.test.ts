import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import committed from '../../openapi/openapi.json' with { type: 'json' };
import { generatedFiles } from '../../openapi/generate';
import { ERROR_CODES } from '../../shared/errors';
import { GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { IDEMPOTENCY_KEY_PATTERN } from '../../shared/pets/idempotency';
import { NAME_PATTERNS } from '../../shared/pets/name-pattern';
import { drawPetId } from '../../shared/pets/pet-ids';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../../functions/table';

const document = committed as Record<string, any>;
const operations = Object.fromEntries(
  OPERATION_IDS.map((id) => [id, document.paths[OPERATIONS[id].route.path][OPERATIONS[id].route.method.toLowerCase()]]),
) as Record<OperationId, Record<string, any>>;
const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

describe('the interface description', () => {
  it('is committed exactly as `npm run generate` generates it from the zod schemas, and so are the client types', async () => {
    for (const [path, contents] of Object.entries(await generatedFiles())) {
      expect(readFileSync(path, 'utf8'), `${path} is stale: run npm run generate`).toBe(contents);
    }
  });

  it('is OpenAPI 3.1 for interface 1.0.0, with prod, staging and local servers and the bearer scheme on every operation', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers.map((server: { description: string }) => server.description.split(':')[0])).toEqual([
      'prod',
      'staging',
      'local',
    ]);
    expect(document.servers[2].url).toBe('http://localhost:3000/v1');
    for (const server of document.servers.slice(0, 2)) expect(server.url).toMatch(/\/v1$/);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const operation of Object.values(operations)) expect(operation.security).toBeUndefined();
  });

  it('has every declared operation with its parameters, body, stability markers, and getPet deprecated with its removal date', () => {
    expect(Object.keys(operations)).toEqual(OPERATION_IDS);
    expect(Object.keys(operations)).toEqual(expect.arrayContaining(['listPets', 'createPet', 'getPet']));
    for (const [id, operation] of Object.entries(operations)) {
      expect(operation.operationId).toBe(id);
      expect(operation['x-stability']).toBe('stable');
    }
    expect(operations.getPet.deprecated).toBe(true);
    expect(operations.getPet['x-sunset']).toBe('2030-12-05');
    expect(operations.getPet.description).toContain('2030-12-05');
    expect(operations.listPets.deprecated).toBeUndefined();
    expect(operations.listPets.parameters).toEqual([
      expect.objectContaining({
        in: 'query',
        name: 'limit',
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      }),
      expect.objectContaining({
        in: 'query',
        name: 'status',
        schema: expect.objectContaining({ $ref: '#/components/schemas/PetStatus' }),
      }),
      expect.objectContaining({ in: 'query', name: 'cursor' }),
    ]);
    expect(document.components.schemas.PetStatus.enum).toEqual(['available', 'pending', 'sold']);
    expect(operations.getPet.parameters).toEqual([
      expect.objectContaining({
        in: 'path',
        name: 'petId',
        required: true,
        schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      }),
    ]);
    // Optional, with a pattern that states the whole rule (1 to 255 visible ASCII characters, or the quoted form).
    expect(operations.createPet.parameters).toEqual([
      expect.objectContaining({
        in: 'header',
        name: 'Idempotency-Key',
        schema: expect.objectContaining({ type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN }),
      }),
    ]);
    expect(operations.createPet.parameters[0].required).not.toBe(true);
    expect(operations.createPet.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
    });
    expect(document.components.schemas.NewPet).toMatchObject({
      required: ['name', 'categoryId'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', allOf: NAME_PATTERNS.map((pattern) => ({ pattern })) },
        categoryId: { type: 'integer', format: 'int64' },
        status: { default: 'available' },
      },
    });
    expect(document.components.schemas.Pet.required).toEqual(['id', 'name', 'categoryId', 'status']);
  });

  it('declares every response the service gives, errors with the Error schema and its codes', () => {
    // 413 on every operation: the web ACL refuses a body over 16 KiB on any route.
    expect(Object.keys(operations.listPets.responses)).toEqual(['200', '400', '401', '413', '429', '500', '503']);
    expect(Object.keys(operations.createPet.responses)).toEqual([
      '201',
      '400',
      '401',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(operations.getPet.responses)).toEqual([
      '200',
      '400',
      '401',
      '404',
      '410',
      '413',
      '429',
      '500',
      '503',
    ]);
    expect(document.components.schemas.Error).toMatchObject({
      required: ['code', 'message', 'status'],
      properties: { code: { enum: [...ERROR_CODES] } },
    });
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        if (Number(status) >= 400)
          expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('declares the headers: rate limits on every response a function gives, Retry-After on 409, 429 and 503, Location, Idempotent-Replayed, Link, and the deprecation trio on getPet', () => {
    for (const [id, operation] of Object.entries(operations)) {
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        const headers = Object.keys(response.headers ?? {});
        if (status === '413') {
          // The web ACL's (EDGE_BODY_TOO_LARGE): fixed headers only, without the request id.
          expect(headers, `${id} ${status}`).toEqual(['Cache-Control', 'X-Content-Type-Options']);
          continue;
        }
        if (status === '401') {
          // Always the gateway's (UNAUTHORIZED, INVALID_API_KEY): fixed headers and the request id.
          expect(headers, `${id} ${status}`).toEqual([
            'X-Request-Id',
            'Cache-Control',
            'X-Content-Type-Options',
            'WWW-Authenticate',
          ]);
          continue;
        }
        expect(headers, `${id} ${status}`).toEqual(
          expect.arrayContaining([...RATE_LIMIT_HEADERS, 'X-Request-Id', 'Cache-Control', 'X-Content-Type-Options']),
        );
        expect(headers.includes('Retry-After'), `${id} ${status}`).toBe(
          status === '409' || status === '429' || status === '503',
        );
        if (id === 'getPet') expect(headers).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
      }
    }
    expect(Object.keys(operations.createPet.responses['201'].headers)).toContain('Location');
    expect(operations.createPet.responses['201'].headers['Idempotent-Replayed']).toMatchObject({
      schema: { const: 'true' },
    });
    expect(operations.createPet.responses['201'].headers['Idempotent-Replayed'].required).not.toBe(true);
    expect(Object.keys(operations.listPets.responses['200'].headers)).toContain('Link');
    expect(document.components.headers['Retry-After']).toMatchObject({
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    expect(document.components.headers['getPet-Sunset'].schema.const).toBe(GET_PET_DEPRECATION.sunsetAt.toUTCString());
    expect(document.components.headers['X-RateLimit-Limit'].required).toBe(true);
    // A 429 of getPet may be the gateway's (a client address refused by the authorizer): no Deprecation then.
    expect(operations.getPet.responses['429'].headers.Deprecation.required).not.toBe(true);
    expect(operations.getPet.responses['200'].headers.Deprecation).toEqual({
      $ref: '#/components/headers/getPet-Deprecation',
    });
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const { stdout } = await promisify(execFile)('npx', ['redocly', 'lint', '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});

describe('what an id holds (issue 49, finding 9)', () => {
  it('the description says it: the creation time to the millisecond, and nothing else to rely on; and ids are drawn so', () => {
    const description: string = document.components.schemas.Pet.properties.id.description;
    expect(description).toContain(
      "An id holds its animal's creation time to the millisecond: floor(id / 4096) milliseconds after 2026-01-01T00:00:00.000Z",
    );
    expect(description).toContain('clients must not rely on anything else in it');
    for (const createdAt of [Date.UTC(2026, 0, 1), Date.UTC(2026, 10, 29, 6, 0, 0, 123), Date.UTC(2094, 11, 31)]) {
      for (const random of [() => 0, () => 4_095])
        expect(Math.floor(drawPetId(createdAt, random) / 4096) + Date.UTC(2026, 0, 1)).toBe(createdAt);
    }
  });
});
