import * as z from 'zod/mini';
import { described, describedCopy } from './describe';
import { MAX_ID } from './fields';

/** A positive integer no larger than 2^53 - 1 (z.int() itself keeps to the safe range). */
export const Identifier = described(
  z.int({ error: `must be an integer from 1 to ${MAX_ID}` }).check(z.minimum(1, `must be an integer from 1 to ${MAX_ID}`)),
  { format: 'int64' },
);

export const CategoryId = describedCopy(Identifier, { description: 'Identifier of the category the animal belongs to.' });
