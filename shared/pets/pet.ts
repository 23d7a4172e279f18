import * as z from 'zod/mini';
import { described, describedCopy } from './describe';
import { NAME_MAX_LENGTH } from './fields';
import { CategoryId, Identifier } from './identifier';
import { ID_EPOCH_MS, RANDOM_BITS } from './pet-ids';
import { PetStatus } from './pet-status';

/** An animal as the service answers it: what the interface description declares (no function builds it). */
export const Pet = described(
  z.strictObject({
    id: describedCopy(Identifier, {
      description:
        'Unique identifier assigned by the service on creation; never reused. Increasing with creation time: an animal created more than a few milliseconds after another has the larger id (two created within that margin may have theirs in either order). Ids have gaps. ' +
        `An id holds its animal's creation time to the millisecond: floor(id / ${2 ** RANDOM_BITS}) milliseconds after ${new Date(ID_EPOCH_MS).toISOString()} ` +
        '(by the clock of the instance that created it); clients must not rely on anything else in it.',
    }),
    name: described(z.string().check(z.minLength(1)), {
      maxLength: NAME_MAX_LENGTH,
      description: "The animal's name.",
    }),
    categoryId: CategoryId,
    status: PetStatus,
  }),
  { description: 'An animal of the store.', examples: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] },
);
export type Pet = z.output<typeof Pet>;
