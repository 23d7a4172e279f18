import { describe, expect, it } from 'vitest';
import { bodiesSection, bodyVerdicts } from '../../bench/bodies-report';
import {
  BODY_SHAPE_NAMES,
  BODY_SHAPES,
  BODY_SIZES,
  BODY_TARGETS,
  bodyOf,
  statusOf,
  type BodiesResult,
} from '../../bench/body-shapes';
import { MAX_BODY_BYTES } from '../../shared/http/body-limit';

/**
 * The bodies part (bench/body-shapes.ts, bench/bodies-report.ts): each shape's body is JSON of
 * exactly the size it is sent at, and the targets' verdicts follow the figures. What createPet
 * answers each body: test/bench/body-answers.test.ts.
 */
describe("the bench's bodies", () => {
  it('sends each shape at 4 KiB, at the largest body accepted and at 64 KiB, refused before any parse', () => {
    expect(BODY_SIZES).toEqual([4096, MAX_BODY_BYTES, 65_536]);
    expect(BODY_SHAPE_NAMES[0]).toBe('plain');
    expect(statusOf('whitespace', MAX_BODY_BYTES)).toBe(201);
    expect(statusOf('whitespace', MAX_BODY_BYTES + 1)).toBe(413);
  });

  it.each(BODY_SHAPE_NAMES)(
    '%s: JSON of exactly its size in bytes at each size, nearly all of it its shape',
    (shape) => {
      for (const bytes of BODY_SIZES) {
        const text = bodyOf(shape, bytes);
        expect([bytes, Buffer.byteLength(text)]).toEqual([bytes, bytes]);
        expect(() => JSON.parse(text)).not.toThrow();
        // At most one unit short of the size, filled with white space (the whitespace shape is all of it).
        const { text: build } = BODY_SHAPES[shape];
        expect(text.trimEnd().length).toBeGreaterThan(bytes - (build(1).length - build(0).length));
      }
    },
  );
});

/** The plain body's p50: 10 µs at 4 KiB, 20 at 16 KiB, 5 at 64 KiB (refused). */
const PLAIN: Record<number, number> = { 4096: 10, [MAX_BODY_BYTES]: 20, 65536: 5 };

/** Figures where every body costs what the plain one does, but where `ours(shape, bytes)` says otherwise (the baseline's all 1 µs). */
function figures(ours: (shape: string, bytes: number) => number | undefined): BodiesResult {
  return {
    iterations: 500,
    p50Microseconds: Object.fromEntries(
      BODY_SHAPE_NAMES.map((shape) => [
        shape,
        Object.fromEntries(
          BODY_SIZES.map((bytes) => [
            String(bytes),
            { ours: (shape === 'plain' ? undefined : ours(shape, bytes)) ?? (PLAIN[bytes] as number), baseline: 1 },
          ]),
        ),
      ]),
    ),
  };
}

describe("the bodies' targets", () => {
  it('met when every body at 64 KiB is within its factor of the plain one, and at 16 KiB within its factor and its growth', () => {
    const atTheBounds = figures((_, bytes) =>
      bytes > MAX_BODY_BYTES
        ? 5 * BODY_TARGETS.refused
        : bytes === MAX_BODY_BYTES
          ? 20 * BODY_TARGETS.accepted
          : (20 * BODY_TARGETS.accepted) / BODY_TARGETS.growth,
    );
    expect(bodyVerdicts(atTheBounds)).toEqual({ refused: true, accepted: true, growth: true });
    expect(bodiesSection(atTheBounds)).not.toContain('missed');
  });

  it('missed when one body at 64 KiB costs more than its factor, as one that was parsed would', () => {
    const parsed = figures((shape, bytes) =>
      bytes > MAX_BODY_BYTES && shape === 'nestedArrays' ? 5 * BODY_TARGETS.refused + 0.1 : undefined,
    );
    expect(bodyVerdicts(parsed)).toEqual({ refused: false, accepted: true, growth: true });
    expect(bodiesSection(parsed)).toContain(
      `At 64 KiB, refused by its size before any parse, every body within ${BODY_TARGETS.refused}× the plain one: **missed** (the highest 1.52×, nestedArrays).`,
    );
  });

  it('missed when one body at 16 KiB grows quadratically from 4 KiB, though within its factor', () => {
    const quadratic = figures((shape, bytes) =>
      shape !== 'fractionDigits' ? undefined : bytes === 4096 ? 5 : bytes === MAX_BODY_BYTES ? 80 : undefined,
    );
    expect(bodyVerdicts(quadratic)).toEqual({ refused: true, accepted: true, growth: false });
    expect(bodiesSection(quadratic)).toContain('**missed** (the highest 16.00×, fractionDigits)');
  });

  it('missed when one body at 16 KiB costs more than its factor over the plain one, though it grew linearly', () => {
    const costly = figures((shape, bytes) =>
      shape !== 'unknownMembers'
        ? undefined
        : bytes === 4096
          ? 1_000
          : bytes === MAX_BODY_BYTES
            ? 20 * BODY_TARGETS.accepted + 20
            : undefined,
    );
    expect(bodyVerdicts(costly)).toEqual({ refused: true, accepted: false, growth: true });
    expect(bodiesSection(costly)).toContain(
      `every body within ${BODY_TARGETS.accepted}× the plain one: **missed** (the highest 101.00×, unknownMembers)`,
    );
  });
});
