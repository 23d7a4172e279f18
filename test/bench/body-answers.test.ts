import { describe, expect, it } from 'vitest';
import { BODY_SHAPE_NAMES, BODY_SIZES, bodyOf, statusOf, type BodyShapeName } from '../../bench/body-shapes';
import { eventOf, lambdaContext } from '../../bench/children/events.mjs';
import { REQUEST_CHECKS } from '../../functions/createPet/request-checks.generated';
import { OPERATIONS } from '../../functions/table';
import { MAX_BODY_BYTES } from '../../shared/http/body-limit';
import { created } from '../../shared/http/result';
import { httpOperation } from '../../shared/http/stack';
import type { Admission } from '../../shared/limits/counter-store';
import { RateLimiter } from '../../shared/limits/rate-limiter';

/**
 * What createPet answers each body the bench times (bench/body-shapes.ts), at every size it sends
 * them: the answer, not the time (the bench measures that). Its stack and its own request checks,
 * every request admitted as the bench's stubbed counter admits it, the event as the bench sends it;
 * the operation answers 201 with the body it was given, so a valid pet is seen to arrive.
 */
const admitted = async (): Promise<Admission> => ({ outcome: 'admitted', minuteCount: 1, dayCount: 1 });
const handler = httpOperation({
  ...REQUEST_CHECKS,
  rateLimiter: new RateLimiter({ admit: admitted }, Date.now),
  handle: async ({ body }) => created(await body),
});
const { method, path } = OPERATIONS.createPet.route;
const send = (text: string) =>
  handler(eventOf({ type: 'request', method, resource: path, bodyText: text }, { key: 'bench-key' }), lambdaContext());

const CATEGORY_ID = [{ path: 'body.categoryId', message: 'must be an integer from 1 to 9007199254740991' }];
const NAME_TOO_LONG = [{ path: 'body.name', message: 'must be at most 100 characters' }];
/** Each shape's answer when it is accepted: the pet it creates (201), or the fields its 400 names. */
const ANSWERS: Record<
  BodyShapeName,
  (text: string) => { status: 201; pet: unknown } | { status: 400; details: unknown }
> = {
  plain: () => ({ status: 400, details: [{ path: 'body.note', message: 'is not a known field' }] }),
  whitespace: () => ({ status: 201, pet: { name: 'Rex', categoryId: 1, status: 'available' } }),
  fractionDigits: () => ({ status: 400, details: CATEGORY_ID }),
  trailingZeros: () => ({ status: 201, pet: { name: 'Rex', categoryId: 1, status: 'available' } }),
  integerDigits: () => ({ status: 400, details: CATEGORY_ID }),
  nestedArrays: () => ({ status: 400, details: CATEGORY_ID }),
  nestedObjects: () => ({ status: 400, details: CATEGORY_ID }),
  unicodeEscapes: () => ({ status: 400, details: NAME_TOO_LONG }),
  backslashEscapes: () => ({ status: 400, details: NAME_TOO_LONG }),
  // The 400 names the first 20 and counts the rest.
  unknownMembers: (text) => {
    const unknown = Object.keys(JSON.parse(text) as object).slice(2);
    return {
      status: 400,
      details: [
        ...unknown.slice(0, 20).map((name) => ({ path: `body.${name}`, message: 'is not a known field' })),
        { path: '(more)', message: `${unknown.length - 20} more fields fail` },
      ],
    };
  },
  integralNumbers: () => ({ status: 400, details: CATEGORY_ID }),
  roundedNumbers: () => ({ status: 400, details: CATEGORY_ID }),
};

describe("the bench's bodies, answered by createPet", () => {
  it.each(BODY_SHAPE_NAMES)(
    '%s: its answer at 4 and 16 KiB, read and judged; 413 at 64 KiB, before any parse',
    async (shape) => {
      for (const bytes of BODY_SIZES) {
        const text = bodyOf(shape, bytes);
        const response = await send(text);
        const answer = JSON.parse(response.body) as Record<string, unknown>;
        expect([bytes, response.statusCode]).toEqual([bytes, statusOf(shape, bytes)]);
        if (bytes > MAX_BODY_BYTES) {
          expect(answer).toStrictEqual({
            status: 413,
            code: 'invalid_request',
            message: 'The request body is larger than this API accepts (16,384 bytes).',
          });
          continue;
        }
        const expected = ANSWERS[shape](text);
        if (expected.status === 201) expect(answer).toStrictEqual(expected.pet);
        else expect([bytes, answer.code, answer.details]).toStrictEqual([bytes, 'invalid_request', expected.details]);
      }
    },
  );
});
