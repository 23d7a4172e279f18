/**
 * Type tests: what each handler's `handle` receives, as httpOperation (shared/http/stack.ts) infers
 * it from the checks its operation's declaration gives (functions/<operationId>/request-checks.generated.ts).
 * tsc is what runs these (`npm run typecheck`, part of `npm test`: tsconfig.json includes test/):
 * `expectTypeOf` does nothing when vitest runs the file, and `toEqualTypeOf` fails to compile
 * when a type widens (to `any` or `unknown` too) or narrows.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import { REQUEST_CHECKS as CREATE_PET_CHECKS } from '../../functions/createPet/request-checks.generated';
import type { createPet } from '../../functions/createPet/operation';
import { REQUEST_CHECKS as GET_PET_CHECKS } from '../../functions/getPet/request-checks.generated';
import type { getPet } from '../../functions/getPet/operation';
import { REQUEST_CHECKS as LIST_PETS_CHECKS } from '../../functions/listPets/request-checks.generated';
import type { listPets } from '../../functions/listPets/operation';
import type { Principal } from '../../shared/auth/principal';
import type { CallDeadline } from '../../shared/dynamodb/call-deadline';
import type { ApiGatewayHandler, httpOperation as HttpOperation, OperationInput } from '../../shared/http/stack';
import type { NewPet } from '../../shared/pets/new-pet';
import type { PetStatus } from '../../shared/pets/pet-status';

/**
 * httpOperation's type, not its module: loading shared/http/stack.ts reads the service's settings
 * (its rate limiter), which a file of this folder (run with shared modules) must not. tsc infers
 * each call below as it does the function's handler; no `handle` here ever runs.
 */
const httpOperation: typeof HttpOperation = () => () => Promise.reject(new Error('a type test runs no handler'));

/** What a `handle` below returns: none runs. */
const notRun = (): never => {
  throw new Error('a type test runs no handler');
};

describe("the stack's typed input (OperationInput)", () => {
  it('gives the validated parts as their types, the body once judged, and who calls', () => {
    type Input = OperationInput<{ q: 1 }, { p: 2 }, { h: 3 }, { b: 4 }>;
    expectTypeOf<Input['query']>().toEqualTypeOf<{ q: 1 }>();
    expectTypeOf<Input['path']>().toEqualTypeOf<{ p: 2 }>();
    expectTypeOf<Input['headers']>().toEqualTypeOf<{ h: 3 }>();
    expectTypeOf<Input['body']>().toEqualTypeOf<Promise<{ b: 4 }>>();
    expectTypeOf<Input['principal']>().toEqualTypeOf<Principal>();
    expectTypeOf<Input['baseUrl']>().toEqualTypeOf<string>();
    expectTypeOf<Input['deadline']>().toEqualTypeOf<CallDeadline | undefined>();
    expectTypeOf<Input['admitted']>().toEqualTypeOf<Promise<void>>();
  });

  it('makes of an operation an API Gateway handler', () => {
    expectTypeOf(httpOperation({ ...LIST_PETS_CHECKS, handle: notRun })).toEqualTypeOf<ApiGatewayHandler>();
  });
});

describe("each handler's input, from its declaration", () => {
  it("listPets: its query as its declaration's schema gives it (status a PetStatus or absent); no path, headers or body", () => {
    httpOperation({
      ...LIST_PETS_CHECKS,
      handle: async (input) => {
        expectTypeOf(input.query).toEqualTypeOf<z.output<typeof listPets.request.query>>();
        expectTypeOf(input.query).toEqualTypeOf<{
          limit: number;
          status?: PetStatus | undefined;
          cursor?: string | undefined;
        }>();
        expectTypeOf(input.query.status).toEqualTypeOf<'available' | 'pending' | 'sold' | undefined>();
        expectTypeOf(input.path).toEqualTypeOf<undefined>();
        // No header declared: no member (`{}`, as shared/http/stack.ts writes it).
        expectTypeOf(input.headers).toEqualTypeOf<Record<never, never>>();
        expectTypeOf(input.body).toEqualTypeOf<Promise<undefined>>();
        return notRun();
      },
    });
  });

  it("getPet: its path's petId a number (the declaration's schema turns the digits into one); no query, headers or body", () => {
    httpOperation({
      ...GET_PET_CHECKS,
      handle: async (input) => {
        expectTypeOf(input.path).toEqualTypeOf<z.output<NonNullable<typeof getPet.request.path>>>();
        expectTypeOf(input.path).toEqualTypeOf<{ petId: number }>();
        expectTypeOf(input.path.petId).toEqualTypeOf<number>();
        expectTypeOf(input.query).toEqualTypeOf<Record<string, never>>();
        // No header declared: no member (`{}`, as shared/http/stack.ts writes it).
        expectTypeOf(input.headers).toEqualTypeOf<Record<never, never>>();
        expectTypeOf(input.body).toEqualTypeOf<Promise<undefined>>();
        return notRun();
      },
    });
  });

  it('createPet: its body a NewPet, its Idempotency-Key header a string or absent; no path', () => {
    httpOperation({
      ...CREATE_PET_CHECKS,
      handle: async (input) => {
        expectTypeOf(input.body).toEqualTypeOf<Promise<NewPet>>();
        expectTypeOf(input.body).toEqualTypeOf<Promise<z.output<typeof createPet.request.body>>>();
        expectTypeOf<Awaited<typeof input.body>>().toEqualTypeOf<{
          name: string;
          categoryId: number;
          status: PetStatus;
        }>();
        expectTypeOf(input.headers).toEqualTypeOf<z.output<typeof createPet.request.headers>>();
        expectTypeOf(input.headers['Idempotency-Key']).toEqualTypeOf<string | undefined>();
        expectTypeOf(input.path).toEqualTypeOf<undefined>();
        return notRun();
      },
    });
  });
});
