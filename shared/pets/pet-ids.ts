import { randomInt } from 'node:crypto';

/**
 * Pet ids ordered by creation time, with no item that every create writes (decisions.md, "id"):
 * the milliseconds since ID_EPOCH_MS times 2^12, plus 12 random bits. Two creates more than a
 * millisecond apart (by their instances' clocks) get ids in their order; two in the same
 * millisecond get theirs in either order, and collide with a chance of 1 in 4,096 (the write's
 * condition catches that, and the create draws again). The largest id, 2^53 - 1, is reached
 * 2^41 ms (69.7 years) after the epoch, in 2095; the first id of 2026-11 is above 1.1 × 10^14,
 * beyond any id the retired counter handed out (it would have taken 3,000 years at 1,000 creates
 * a second).
 */
export const ID_EPOCH_MS = Date.UTC(2026, 0, 1);
export const RANDOM_BITS = 12;
const RANDOM_RANGE = 2 ** RANDOM_BITS;

let randomBits: (range: number) => number = randomInt;

/** For the README's session and tests: replace the random bits; returns a function that restores them. */
export function setIdRandomness(next: (range: number) => number): () => void {
  const previous = randomBits;
  randomBits = next;
  return () => {
    randomBits = previous;
  };
}

/** An id for a pet whose write is sent now. */
export function drawPetId(nowMs: number, random: (range: number) => number = randomBits): number {
  return (nowMs - ID_EPOCH_MS) * RANDOM_RANGE + random(RANDOM_RANGE);
}

/** When the id was drawn (ms since the Unix epoch); ids of the retired counter read as the epoch. */
export function drawnAt(id: number): number {
  return ID_EPOCH_MS + Math.floor(id / RANDOM_RANGE);
}

/** The largest id drawn at or before `ms`: a listing's upper bound. */
export function lastIdDrawnBy(ms: number): number {
  return (ms - ID_EPOCH_MS) * RANDOM_RANGE + RANDOM_RANGE - 1;
}

/**
 * How long a write may carry its id: a retry of the same write (the SDK's, after a throttle or a
 * lost connection) is sent only while the id is younger than this; past it, the create answers
 * 503 rather than let a pet land below the ids that listings have already shown.
 */
export const YOUNG_ID_MS = 250;

/** How far apart the clocks of two function instances may be (decisions.md, "Next page"). */
export const CLOCK_SKEW_MS = 200;

/**
 * How long after a create sends its last attempt the pet may take to show in the listing's reads:
 * the request's way to DynamoDB and its write (milliseconds; up to the attempt's timeout, 1 s, if
 * the network stalls it), a global index's propagation and an eventually consistent read's
 * replica. DynamoDB states no bound ("usually within a fraction of a second"): this is the lag the
 * listing is built to absorb, and past it a client that follows new pets may miss one.
 */
export const INDEX_LAG_MS = 350;

/** A walk never skips a pet created (its create answered) at least this long before it began (decisions.md). */
export const WALK_MARGIN_MS = 1_000;

/**
 * The least settle time for which a page never passes an id whose pet may still show: a pet's id
 * is drawn by its creating instance's clock, up to CLOCK_SKEW_MS from the listing's; its write's
 * last attempt may be sent up to YOUNG_ID_MS after; it shows up to INDEX_LAG_MS later. So
 * by the listing's clock every pet with an id drawn more than the sum ago is readable, and a cursor
 * past it loses nothing: a client that polls its last cursor sees every pet.
 */
export const MIN_LISTING_SETTLE_MS = CLOCK_SKEW_MS + YOUNG_ID_MS + INDEX_LAG_MS;

/**
 * How old an id must be before a listing shows it: no page returns, and no cursor points past, an
 * id drawn less than this long ago (by the listing instance's clock). At least
 * MIN_LISTING_SETTLE_MS (what polling needs), and at most WALK_MARGIN_MS - CLOCK_SKEW_MS (what a
 * walk needs: a pet answered a second before the walk began has an id at most 800 ms older than
 * the walk's start by the listing's clock, and a page shows it only once its id is this old).
 * Both are 800 ms: the index lag allowed (INDEX_LAG_MS) is what is left between them. A busy first
 * page, kept up to CACHED_PAGE_MS (./first-page-cache.ts), may be older by that much.
 */
export const LISTING_SETTLE_MS = MIN_LISTING_SETTLE_MS;

/**
 * A pet id no create has drawn or will draw, for the release check's probe of a get that must
 * find nothing: well-formed (it passes getPet's checks), so the request reaches the datastore.
 * Ids are drawn for the moment of a create (drawPetId above), and this is the first id of
 * 2026-02-01, ten months before that scheme was written (no create ran then, no create will run
 * then again); the retired counter handed out ids one by one, never near 10^13.
 */
export const UNISSUED_PET_ID = drawPetId(Date.UTC(2026, 1, 1), () => 0);
