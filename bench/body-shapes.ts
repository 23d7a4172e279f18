import { MAX_BODY_BYTES } from '../shared/http/body-limit';
import type { BenchFunction, Implementation } from './cases';

/**
 * The bodies part of `npm run bench` (issue 49, finding 1: a body is read in time linear in its
 * length): createPet sent the worst body of each shape, at 4 KiB, at the largest body a route
 * accepts (16 KiB, parsed and judged) and at 64 KiB (refused 413 by its size before any parse),
 * each beside a plain body of the same size. The factor shape / plain says what a shape costs
 * over any body of its size; its growth from 4 to 16 KiB tells linear (4× the bytes, at most 4×
 * the time) from quadratic (16×). test/bench/body-answers.test.ts holds each body's answer.
 */
export const BODIES_FUNCTION = 'createPet' as const satisfies BenchFunction;

/** 4 KiB (the growth's base), the largest body accepted, and 64 KiB (the size the review's 3.5 s body had). */
export const BODY_SIZES = [4 * 1024, MAX_BODY_BYTES, 64 * 1024] as const;

export interface RequestBodyShape {
  readonly description: string;
  /** The body with `count` repetitions of its shape's unit; its length grows by the same each. */
  readonly text: (count: number) => string;
  /** What createPet answers it when it is accepted (at most MAX_BODY_BYTES): 201 or a 400. */
  readonly status: 201 | 400;
}

const PET = '{"name":"Rex","categoryId":';

/**
 * Every shape in its worst place: a digit run that each check of a number reads whole, white space
 * that both the scan's name check and its token search go over, nesting that opens an object or
 * array per byte or so, escapes in the name that the name's rules read once decoded, unknown
 * members the 400 counts, numbers that each need judging as written.
 */
export const BODY_SHAPES = {
  /**
   * The plain body: a pet with one long unknown member of plain letters (no escape, no digit).
   * What any body of its size costs, read straight through by JSON.parse and the scan; answered
   * 400 as most shapes are, naming one field, so a factor compares bodies, not answers.
   */
  plain: {
    description: 'a pet with one long unknown member of plain letters',
    text: (count) => `${PET}1,"note":"${'x'.repeat(count)}"}`,
    status: 400,
  },
  whitespace: {
    description: 'a valid pet with a run of spaces after its name',
    text: (count) => `{"name":"Rex"${' '.repeat(count)},"categoryId":1}`,
    status: 201,
  },
  // The review's body: a run of zeros ending in another digit (it was quadratic).
  fractionDigits: {
    description: 'categoryId 1.000…0001',
    text: (count) => `${PET}1.${'0'.repeat(count)}1}`,
    status: 400,
  },
  trailingZeros: {
    description: 'categoryId 1.000…000 (an integer as written: a valid pet)',
    text: (count) => `${PET}1.${'0'.repeat(count)}}`,
    status: 201,
  },
  integerDigits: { description: 'categoryId 999…999', text: (count) => `${PET}${'9'.repeat(count)}}`, status: 400 },
  nestedArrays: {
    description: 'categoryId [[[…]]]',
    text: (count) => `${PET}${'['.repeat(count)}${']'.repeat(count)}}`,
    status: 400,
  },
  nestedObjects: {
    description: 'categoryId {"a":{"a":…{}…}}',
    text: (count) => `${PET}${'{"a":'.repeat(count)}{}${'}'.repeat(count)}}`,
    status: 400,
  },
  unicodeEscapes: {
    description: 'a name of \\u0041 escapes',
    text: (count) => `{"name":"${'\\u0041'.repeat(count)}","categoryId":1}`,
    status: 400,
  },
  backslashEscapes: {
    description: 'a name of \\\\ escapes',
    text: (count) => `{"name":"${'\\\\'.repeat(count)}","categoryId":1}`,
    status: 400,
  },
  // Names of one width, so that each member adds the same bytes.
  unknownMembers: {
    description: 'a pet with unknown members "m000":0, "m001":0, …',
    text: (count) =>
      `${PET}1${Array.from({ length: count }, (_, i) => `,"m${i.toString(36).padStart(3, '0')}":0`).join('')}}`,
    status: 400,
  },
  integralNumbers: {
    description: 'categoryId [1.0,1.0,…] (integers as written)',
    text: (count) =>
      `${PET}[${Array(count + 1)
        .fill('1.0')
        .join(',')}]}`,
    status: 400,
  },
  roundedNumbers: {
    description: 'categoryId [0.99999999999999999,…] (a double rounds each to 1)',
    text: (count) =>
      `${PET}[${Array(count + 1)
        .fill('0.99999999999999999')
        .join(',')}]}`,
    status: 400,
  },
} as const satisfies Record<string, RequestBodyShape>;
export type BodyShapeName = keyof typeof BODY_SHAPES;
export const BODY_SHAPE_NAMES = Object.keys(BODY_SHAPES) as BodyShapeName[];

/** The shape's body of exactly `bytes` bytes: as many units as fit, then spaces (JSON's white space) to the byte. */
export function bodyOf(shape: BodyShapeName, bytes: number): string {
  const { text } = BODY_SHAPES[shape];
  const base = text(0).length;
  const unit = text(1).length - base;
  const body = text(Math.floor((bytes - base) / unit));
  // Every shape is ASCII: a character is a byte.
  return body.padEnd(bytes, ' ');
}

/** What createPet answers a body of the shape and size: larger than it accepts, 413 before any parse. */
export const statusOf = (shape: BodyShapeName, bytes: number): number =>
  bytes > MAX_BODY_BYTES ? 413 : BODY_SHAPES[shape].status;

/** Each body's timed invocations per side, in blocks of ours and the baseline in turn (bench/children/bodies.mjs). */
export const BODY_ITERATIONS = 500;

/**
 * The bounds, each about twice what this machine measured in a busy hour (docs/performance.md,
 * bodies in linear time, has the runs).
 */
export const BODY_TARGETS = {
  /** At 64 KiB every body is refused by its size before any parse: at most this many times the plain one (measured 0.96× to 1.01×). */
  refused: 1.5,
  /** At 16 KiB, parsed and judged: at most this many times the plain body (measured up to 49×; the review's quadratic body would read thousands). */
  accepted: 100,
  /** From 4 to 16 KiB, four times the bytes: at most this many times the time (measured up to 4.6×; linear reads 4×, quadratic 16×, 8 between them). */
  growth: 8,
} as const;

/** The p50 in µs of each shape's body, by size (in bytes) and side. */
export type BodyFigures = Record<string, Record<string, Record<Implementation, number>>>;

export interface BodiesResult {
  readonly iterations: number;
  readonly p50Microseconds: BodyFigures;
}
