/**
 * The limits, the statuses, the rule on integers in text, and the messages and text patterns that
 * the pet schemas and the functions' request checks share: plain values, no schema, so that the
 * functions, which build no zod schema, read the same words and rules as the schemas.
 */

/** Largest id any JSON client, JavaScript included, reads exactly: 2^53 - 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const NAME_MAX_LENGTH = 100;
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;
/**
 * Integers in the query and the path are read from canonical decimal digits only, which a schema
 * of `type: integer` cannot say: a validator reads `07` or `7.0` as the number 7.
 */
export const PLAIN_DECIMAL_RULE =
  'Beyond what the schema states: written in plain decimal digits without a leading zero (`7`, not `07`, `+7`, `7.0`, `7e0`, `0x7` or ` 7`); ' +
  'a validator that reads those as the number 7 accepts what the service refuses with 400.';
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export const isPetStatus = (value: unknown): value is (typeof PET_STATUSES)[number] =>
  (PET_STATUSES as readonly unknown[]).includes(value);
export const DEFAULT_PET_STATUS: (typeof PET_STATUSES)[number] = 'available';

/** What a client reads when an identifier, a page size or a status is refused. */
export const ID_MESSAGE = `must be an integer from 1 to ${MAX_ID}`;
export const PAGE_SIZE_MESSAGE = `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`;
export const CURSOR_EMPTY_MESSAGE = 'must not be empty';
export const STATUS_MESSAGE = `must be one of ${PET_STATUSES.join(', ')}`;
/** The text of a path's pet id and of a query's page size: canonical decimal digits (PLAIN_DECIMAL_RULE). */
export const PET_ID_TEXT = /^[1-9][0-9]{0,15}$/;
export const PAGE_SIZE_TEXT = /^[1-9][0-9]{0,3}$/;
