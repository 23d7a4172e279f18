import { describe, expect, it } from 'vitest';
import {
  deprecationHeaders,
  GET_PET_DEPRECATION,
  goneProblem,
  isPastSunset,
} from '../../../../shared/http/deprecation';

/** getPet's deprecation (docs/interface-and-decisions.md): its headers before the sunset, a 410 from it on. (Over HTTP: test/http/sunset.test.ts.) */
const sunset = Date.UTC(2030, 11, 5);

describe("GET /pets/{petId}'s deprecation", () => {
  it('dates from 22 November 2026, ends on 5 December 2030, and names GET /v1/pets as its successor', () => {
    expect(GET_PET_DEPRECATION).toStrictEqual({
      deprecatedAt: new Date(Date.UTC(2026, 10, 22)),
      sunsetAt: new Date(sunset),
      successorPath: '/v1/pets',
    });
  });

  it("is past its sunset from that instant on, by the service's clock, not a millisecond before", () => {
    expect(isPastSunset(GET_PET_DEPRECATION, sunset - 1)).toBe(false);
    expect(isPastSunset(GET_PET_DEPRECATION, sunset)).toBe(true);
    expect(isPastSunset(GET_PET_DEPRECATION, sunset + 86_400_000)).toBe(true);
  });

  it('answers Deprecation (RFC 9745: @ and the Unix time in seconds), Sunset (an HTTP date) and the successor link', () => {
    expect(deprecationHeaders(GET_PET_DEPRECATION)).toStrictEqual({
      Deprecation: '@1795305600',
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</v1/pets>; rel="successor-version"',
    });
  });

  it('is a 410 gone from its sunset, naming the date and the successor', () => {
    expect(goneProblem(GET_PET_DEPRECATION)).toStrictEqual({
      status: 410,
      code: 'gone',
      message: 'This operation was removed on Thu, 05 Dec 2030 00:00:00 GMT; use /v1/pets instead.',
    });
  });
});
