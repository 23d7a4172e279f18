import * as z from 'zod/mini';
import { described, describedCopy } from './describe';
import { ID_MESSAGE } from './fields';

/** A positive integer no larger than 2^53 - 1 (z.int() itself keeps to the safe range). */
export const Identifier = described(z.int({ error: ID_MESSAGE }).check(z.minimum(1, ID_MESSAGE)), { format: 'int64' });

export const CategoryId = describedCopy(Identifier, {
  description: 'Identifier of the category the animal belongs to.',
});
