import { MAX_BODY_BYTES } from '../shared/http/body-limit';
import {
  BODIES_FUNCTION,
  BODY_SHAPES,
  BODY_SIZES,
  BODY_TARGETS,
  statusOf,
  type BodiesResult,
  type BodyShapeName,
} from './body-shapes';
import type { Implementation } from './cases';

/**
 * The bodies part's figures as bench/results.md shows them (and `npm run bench -- --only bodies`
 * prints): each body beside the plain one of its size, the factor, the growth from 4 to 16 KiB,
 * and the targets' verdicts (bench/body-shapes.ts BODY_TARGETS).
 */
const [GROWTH_BASE, ACCEPTED, REFUSED] = BODY_SIZES;
const kib = (bytes: number) => `${bytes / 1024} KiB`;
const times = (value: number) => `${value.toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

/** Each figure the targets read, ours: the factor over the plain body at a size, and the growth from 4 to 16 KiB. */
export function bodyFactors(
  result: BodiesResult,
  side: Implementation = 'ours',
): { shape: string; bytes: number; factor: number; growth: number | undefined }[] {
  const figures = result.p50Microseconds;
  const plain = figures.plain;
  if (plain === undefined) throw new Error('the body figures have no plain body: its factors cannot be told');
  return Object.entries(figures).flatMap(([shape, bySize]) =>
    BODY_SIZES.flatMap((bytes) => {
      const at = bySize[String(bytes)]?.[side];
      const plainAt = plain[String(bytes)]?.[side];
      if (at === undefined || plainAt === undefined) return [];
      const base = bySize[String(GROWTH_BASE)]?.[side];
      return [
        {
          shape,
          bytes,
          factor: at / plainAt,
          growth: bytes === ACCEPTED && base !== undefined ? at / base : undefined,
        },
      ];
    }),
  );
}

/** Whether every body meets the targets: within its factor of the plain body at 16 and at 64 KiB, and its growth from 4 KiB. */
export function bodyVerdicts(result: BodiesResult): { refused: boolean; accepted: boolean; growth: boolean } {
  const factors = bodyFactors(result);
  return {
    refused: factors
      .filter(({ bytes }) => bytes > MAX_BODY_BYTES)
      .every(({ factor }) => factor <= BODY_TARGETS.refused),
    accepted: factors.filter(({ bytes }) => bytes === ACCEPTED).every(({ factor }) => factor <= BODY_TARGETS.accepted),
    growth: factors.every(({ growth }) => growth === undefined || growth <= BODY_TARGETS.growth),
  };
}

/** The highest of the figures, with its shape: what a verdict line names. */
function highest(entries: { shape: string; value: number }[]): string {
  const top = entries.reduce((best, entry) => (entry.value > best.value ? entry : best));
  return `${times(top.value)}, ${top.shape}`;
}

export function bodiesSection(result: BodiesResult): string {
  const figures = result.p50Microseconds;
  const factors = bodyFactors(result);
  const baselineFactors = bodyFactors(result, 'baseline');
  const factorOf = (list: typeof factors, shape: string, bytes: number) =>
    list.find((entry) => entry.shape === shape && entry.bytes === bytes);
  const lines = [
    `## Bodies: ${BODIES_FUNCTION} reading and judging bodies of each shape (${result.iterations} invocations each, DynamoDB stubbed, every request admitted; µs, p50)`,
    '',
    `Each body beside the plain one of its size (${BODY_SHAPES.plain.description}): the factor is the body's p50 over the plain body's, each side its own. At ${kib(ACCEPTED)} (${MAX_BODY_BYTES.toLocaleString('en-US')} bytes, the largest a route accepts) a body is parsed and judged; at ${kib(REFUSED)} it is refused 413 by its size before any parse. The growth is the time at ${kib(ACCEPTED)} over the time at ${kib(GROWTH_BASE)}: four times the bytes, so at most 4× for a linear reading (less its fixed cost), 16× for a quadratic one.`,
    '',
    `| body | size | answer | ours | plain | factor | baseline | baseline plain | baseline factor | growth from ${kib(GROWTH_BASE)}: ours / baseline | target |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const bytes of BODY_SIZES) {
    for (const [shape, bySize] of Object.entries(figures)) {
      const at = bySize[String(bytes)];
      if (at === undefined) continue;
      const plain = figures.plain?.[String(bytes)] as Record<Implementation, number>;
      const ours = factorOf(factors, shape, bytes);
      const baseline = factorOf(baselineFactors, shape, bytes);
      const growth =
        ours?.growth === undefined
          ? ''
          : `${times(ours.growth)} / ${baseline?.growth === undefined ? '–' : times(baseline.growth)}`;
      const target =
        bytes > MAX_BODY_BYTES
          ? `≤ ${BODY_TARGETS.refused}×: ${verdict((ours?.factor ?? Infinity) <= BODY_TARGETS.refused)}`
          : bytes === ACCEPTED
            ? `≤ ${BODY_TARGETS.accepted}×, growth ≤ ${BODY_TARGETS.growth}×: ${verdict((ours?.factor ?? Infinity) <= BODY_TARGETS.accepted && (ours?.growth ?? 0) <= BODY_TARGETS.growth)}`
            : '–';
      const description = Object.hasOwn(BODY_SHAPES, shape) ? BODY_SHAPES[shape as BodyShapeName].description : shape;
      lines.push(
        `| ${shape}: ${description} | ${kib(bytes)} | ${statusOf(shape as BodyShapeName, bytes)} | ${at.ours.toFixed(1)} | ${plain.ours.toFixed(1)} | ${times(ours?.factor ?? Number.NaN)} | ${at.baseline.toFixed(1)} | ${plain.baseline.toFixed(1)} | ${times(baseline?.factor ?? Number.NaN)} | ${growth} | ${target} |`,
      );
    }
  }
  const { refused, accepted, growth } = bodyVerdicts(result);
  const at = (bytes: number) =>
    factors
      .filter((entry) => entry.bytes === bytes && entry.shape !== 'plain')
      .map(({ shape, factor }) => ({ shape, value: factor }));
  const growths = factors.flatMap(({ shape, growth: value }) => (value === undefined ? [] : [{ shape, value }]));
  lines.push(
    '',
    `At ${kib(REFUSED)}, refused by its size before any parse, every body within ${BODY_TARGETS.refused}× the plain one: ${verdict(refused)} (the highest ${highest(at(REFUSED))}).`,
    '',
    `At ${kib(ACCEPTED)}, parsed and judged, every body within ${BODY_TARGETS.accepted}× the plain one: ${verdict(accepted)} (the highest ${highest(at(ACCEPTED))}); and its time at most ${BODY_TARGETS.growth}× its time at ${kib(GROWTH_BASE)}: ${verdict(growth)} (the highest ${highest(growths)}).`,
  );
  return `${lines.join('\n')}\n`;
}
